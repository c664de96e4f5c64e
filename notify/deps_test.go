package notify_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when the notifier reaches the server side: it
// delivers leasegate.Notice values it is handed, and knows nothing of the
// coordinator that hands them over.
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/notify"
	deps := deptest.Deps(t, pkg)
	deptest.Require(t, pkg, deps, "github.com/leasegate/leasegate")
	deptest.Forbid(t, pkg, deps,
		"github.com/leasegate/leasegate/coordinator", "github.com/leasegate/leasegate/store", "go.etcd.io/bbolt")
}
