package workspace

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/leasegate/leasegate/internal/envname"
)

// ClusterNone is the value of LEASEGATE_CLUSTER that names the ledger file
// in the state directory whatever leasegate.json names.
const ClusterNone = "none"

// LoadEffectiveConfig is LoadConfig with the environment applied: a
// LEASEGATE_CLUSTER set to a JSON object (leasegate.json's "cluster", the
// same fields and rules) replaces the file's cluster whole, and one set
// to "none" removes it; unset or empty, the file's stands. Orchestrators
// and CI runners set it to name the cluster without editing the committed
// file (each runner may reach etcd by its own address). An invalid value
// is a *ConfigError naming the variable and the field, and nothing runs
// on it, as on an invalid file.
func LoadEffectiveConfig(root string) (Config, error) {
	c, err := LoadConfig(root)
	if err != nil {
		return Config{}, err
	}
	if err := c.overrideCluster(os.Getenv(envname.Cluster)); err != nil {
		return Config{}, &ConfigError{Path: envname.Cluster, Err: err}
	}
	return c, nil
}

// overrideCluster applies value, LEASEGATE_CLUSTER's, to c.
func (c *Config) overrideCluster(value string) error {
	value = strings.TrimSpace(value)
	switch {
	case value == "":
		return nil
	case value == ClusterNone:
		c.Cluster, c.ClusterFrom = nil, envname.Cluster
		return nil
	case !strings.HasPrefix(value, "{"):
		return fmt.Errorf("%q: want %s or a JSON object such as leasegate.json's \"cluster\": "+
			`{"endpoints": ["http://10.0.0.5:2379"], "workspace": "acme/web"}`, value, ClusterNone)
	}
	var cl Cluster
	if err := decodeStrict([]byte(value), &cl); err != nil {
		return err
	}
	if err := errors.Join(cl.validate()...); err != nil {
		return err
	}
	c.Cluster, c.ClusterFrom = &cl, envname.Cluster
	return nil
}
