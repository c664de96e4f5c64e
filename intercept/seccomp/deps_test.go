//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when the seccomp adapter gains a dependency it
// must not have: no lease logic, no HTTP, no other adapter. The leasegate
// packages it may import are intercept (the types every adapter reports
// in), the packages below it that every adapter shares (spawn, procfs),
// and internal/envname, a table of environment names without code.
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/intercept/seccomp"
	deps := deptest.Deps(t, pkg)
	deptest.Require(t, pkg, deps, "golang.org/x/sys/unix")
	deptest.Forbid(t, pkg, deps, "net/http", "go.etcd.io/bbolt", "github.com/hanwen/go-fuse/v2",
		"github.com/shirou/gopsutil/v3", "github.com/hashicorp/go-retryablehttp")
	allowed := map[string]bool{
		"github.com/leasegate/leasegate/intercept":        true,
		"github.com/leasegate/leasegate/intercept/spawn":  true,
		"github.com/leasegate/leasegate/intercept/procfs": true,
		"github.com/leasegate/leasegate/internal/envname": true,
	}
	for _, dep := range deps {
		if deptest.Under(dep, "github.com/leasegate/leasegate") && dep != pkg && !allowed[dep] {
			t.Errorf("%s depends on %s: adapters import no other leasegate package", pkg, dep)
		}
	}
}
