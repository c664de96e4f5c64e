//go:build linux

package spawn_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when starting a worker gains a dependency on a
// gate or on lease logic: each adapter brings its gate (Gate.Setup), and
// spawn knows none of them.
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/intercept/spawn"
	deps := deptest.Deps(t, pkg)
	deptest.Forbid(t, pkg, deps, "net/http", "github.com/hanwen/go-fuse/v2",
		"github.com/leasegate/leasegate/intercept/seccomp", "github.com/leasegate/leasegate/intercept/fuse")
	allowed := map[string]bool{pkg: true,
		"github.com/leasegate/leasegate/intercept/procfs": true,
		"github.com/leasegate/leasegate/internal/envname": true,
	}
	for _, dep := range deps {
		if deptest.Under(dep, "github.com/leasegate/leasegate") && !allowed[dep] {
			t.Errorf("%s depends on %s", pkg, dep)
		}
	}
}
