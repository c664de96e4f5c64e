package scheduler_test

import (
	"strings"
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

const schedulerPkg = "github.com/leasegate/leasegate/scheduler"

// allowedImports are the only non-standard packages scheduler may import:
// it knows clocks and logging, and takes one constant from the lease model.
var allowedImports = map[string]bool{
	"github.com/benbjohnson/clock":        true,
	"github.com/hashicorp/go-hclog":       true,
	"github.com/leasegate/leasegate/gate": true,
}

// forbiddenDeps may not be reached even transitively: the scheduler knows
// nothing of HTTP, processes or storage.
var forbiddenDeps = []string{"net", "net/http", "os/exec", "database/sql", "go.etcd.io/bbolt"}

// TestDependencies fails when scheduler imports beyond clocks, logging and
// the lease model, or reaches HTTP, processes or storage.
func TestDependencies(t *testing.T) {
	for _, imp := range deptest.Imports(t, schedulerPkg) {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") && !allowedImports[imp] {
			t.Errorf("scheduler imports %s, outside its allowed set", imp)
		}
	}
	deps := deptest.Deps(t, schedulerPkg)
	deptest.Require(t, schedulerPkg, deps, "github.com/benbjohnson/clock")
	deptest.Forbid(t, schedulerPkg, deps, forbiddenDeps...)
	for _, dep := range deps {
		if strings.HasPrefix(dep, "github.com/leasegate/leasegate/") && dep != schedulerPkg && !allowedImports[dep] {
			t.Errorf("scheduler depends on %s (forbidden)", dep)
		}
	}
}
