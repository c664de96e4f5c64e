package console_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when the console reaches past the API: it shows
// and acts through the api client, never the store or the interception.
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/console"
	deps := deptest.Deps(t, pkg)
	deptest.Require(t, pkg, deps, "github.com/leasegate/leasegate/api")
	deptest.Require(t, pkg, deps, "github.com/prometheus/client_golang/prometheus")
	deptest.Forbid(t, pkg, deps,
		"github.com/leasegate/leasegate/coordinator", "github.com/leasegate/leasegate/sidecar", "github.com/leasegate/leasegate/intercept",
		"github.com/leasegate/leasegate/store/bolt", "go.etcd.io/bbolt", "github.com/leasegate/leasegate/hooks")
}
