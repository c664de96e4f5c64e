package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// ConfigFile is the name of the optional config file at the workspace root.
const ConfigFile = "leasegate.json"

// Config is what leasegate.json may change. Globs are clean
// workspace-relative patterns as gate.CleanPath leaves them unchanged:
// `*` and `?` within a segment, `**` for any number of segments
// (write `build/**`, not `build/`).
type Config struct {
	// Include lists globs gated even when git ignores them. Default none.
	Include []string `json:"include,omitempty"`
	// Exclude lists globs never gated; they win over Include. Default none.
	Exclude []string `json:"exclude,omitempty"`
	// Pairs are pair rules "FROM -> TO" (see gate.CompilePairRules).
	// Default gate.DefaultPairRules; an empty list pairs nothing.
	Pairs []string `json:"pairs"`
	// GateGitIgnored gates paths git ignores too. Default false: ignored
	// paths (build outputs, node_modules/) are regenerable, and gating them
	// turns every parallel build into contention.
	GateGitIgnored bool `json:"gate_git_ignored,omitempty"`
	// Cluster, when set, keeps the lease table in etcd, shared with every
	// clone of the repository that names the same workspace on the same
	// cluster. Default none: the ledger is a file in .git/leasegate.
	// The environment variable LEASEGATE_CLUSTER replaces it (see
	// LoadEffectiveConfig).
	Cluster *Cluster `json:"cluster,omitempty"`
	// ClusterFrom says what named Cluster, or named no cluster: ConfigFile
	// or the environment variable; "" when neither names one. It is not
	// read from the file.
	ClusterFrom string `json:"-"`
}

// Cluster names the etcd cluster and the shared workspace.
type Cluster struct {
	// Endpoints are etcd client URLs, such as http://10.0.0.5:2379.
	Endpoints []string `json:"endpoints"`
	// Workspace is the name every clone sharing the table gives.
	Workspace string `json:"workspace"`
	// SessionTTL is how long this coordinator's etcd session outlives
	// its last keep-alive, in whole seconds, at least 2s ("10s"). Default
	// "", which means 10 s.
	SessionTTL string `json:"session_ttl,omitempty"`
}

// TTL is SessionTTL parsed; 0 for the default.
func (c *Cluster) TTL() time.Duration {
	d, _ := time.ParseDuration(c.SessionTTL)
	return d
}

func (c *Cluster) validate() []error {
	var errs []error
	if len(c.Endpoints) == 0 {
		errs = append(errs, errors.New("cluster.endpoints: want at least one etcd client URL"))
	}
	for i, e := range c.Endpoints {
		if !strings.HasPrefix(e, "http://") && !strings.HasPrefix(e, "https://") {
			errs = append(errs, fmt.Errorf("cluster.endpoints[%d]: %q is not an http:// or https:// URL", i, e))
		}
	}
	if c.SessionTTL != "" {
		d, err := time.ParseDuration(c.SessionTTL)
		if err != nil || d < 2*time.Second || d%time.Second != 0 {
			errs = append(errs, fmt.Errorf("cluster.session_ttl: %q: want whole seconds, at least 2s, such as \"10s\"", c.SessionTTL))
		}
	}
	if c.Workspace == "" || strings.Trim(c.Workspace, "/") != c.Workspace {
		errs = append(errs, fmt.Errorf("cluster.workspace: %q: want a non-empty name without a leading or trailing /", c.Workspace))
	} else if err := checkWorkspaceName(c.Workspace); err != nil {
		errs = append(errs, fmt.Errorf("cluster.workspace: %q: %w", c.Workspace, err))
	}
	return errs
}

// checkWorkspaceName refuses a shared workspace's name whose etcd keys
// would lie among another workspace's: its ledger and its sessions live
// under NAME/ledger/ and NAME/members/, so "acme/ledger/e" would put
// records among those of "acme", and "acme/members" would show "acme"
// hosts that do not exist. An empty, "." or ".." part is refused too: it
// names the same keys differently on a reader that cleans paths.
func checkWorkspaceName(name string) error {
	for part := range strings.SplitSeq(name, "/") {
		switch part {
		case "", ".", "..":
			return fmt.Errorf("an empty, \".\" or \"..\" part between slashes; want parts such as \"acme/web\"")
		case "ledger", "members":
			return fmt.Errorf("a part named %q would put its etcd keys among those of the workspace before it; choose another part", part)
		}
	}
	return nil
}

// DefaultConfig is the configuration of a workspace without leasegate.json.
func DefaultConfig() Config {
	return Config{Pairs: slices.Clone(gate.DefaultPairRules)}
}

// Validate reports every invalid glob and pair rule, naming the field.
func (c *Config) Validate() error {
	errs := append(validateGlobs("include", c.Include), validateGlobs("exclude", c.Exclude)...)
	if c.Cluster != nil {
		errs = append(errs, c.Cluster.validate()...)
	}
	for i, r := range c.Pairs {
		if _, err := gate.CompilePairRules([]string{r}); err != nil {
			errs = append(errs, fmt.Errorf("pairs[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

func validateGlobs(field string, globs []string) []error {
	var errs []error
	for i, g := range globs {
		clean, err := gate.CleanPath(g)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s[%d]: %w", field, i, err))
		case clean != g:
			errs = append(errs, fmt.Errorf("%s[%d]: glob %q is not clean; write %q", field, i, g, clean))
		}
	}
	return errs
}

// PairRules compiles Pairs.
func (c *Config) PairRules() ([]gate.PairRule, error) {
	rules, err := gate.CompilePairRules(c.Pairs)
	if err != nil {
		return nil, fmt.Errorf("pairs: %w", err)
	}
	return rules, nil
}

// LoadConfig reads ConfigFile at root over DefaultConfig and validates it.
// A missing file gives the defaults; a field the file leaves out keeps its
// default. Unknown fields are errors. Errors name the file and the field.
func LoadConfig(root string) (Config, error) {
	path := filepath.Join(root, ConfigFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultConfig(), nil
	}
	if err != nil {
		return Config{}, err
	}
	c, err := parseConfig(data)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		return Config{}, &ConfigError{Path: path, Err: err}
	}
	if c.Cluster != nil {
		c.ClusterFrom = ConfigFile
	}
	return c, nil
}

// ConfigError is a leasegate.json, or a LEASEGATE_CLUSTER, that cannot
// be read as a configuration: malformed JSON, an unknown field, an invalid
// glob, pair rule or cluster. Nothing runs on it; the operator mends it.
type ConfigError struct {
	Path string // the file, or the environment variable
	Err  error  // what is wrong, naming the field
}

func (e *ConfigError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

func parseConfig(data []byte) (Config, error) {
	c := DefaultConfig()
	if err := decodeStrict(data, &c); err != nil {
		return Config{}, err
	}
	return c, nil
}

// decodeStrict decodes the one JSON value in data into v, refusing
// unknown fields and anything after the value.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON object")
	}
	return nil
}

// jsonError rewords a decoding error so that it names the field.
func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return fmt.Errorf("field %q: want %s, got JSON %s", typeErr.Field, typeErr.Type, typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("invalid JSON at byte %d: %w", syntaxErr.Offset, err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: it ends inside the object")
	case errors.Is(err, io.EOF):
		return errors.New("empty file; want a JSON object such as {}")
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: ")) // `unknown field "x"`
}
