package scheduler_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
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

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	out, err := exec.Command(gobin, append([]string{"list"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, out)
	}
	return strings.Fields(string(out))
}

// TestDependencies fails when scheduler imports a package beyond the clock,
// the logger, gate and the standard library, or reaches HTTP, processes or
// a store through them.
func TestDependencies(t *testing.T) {
	for _, imp := range goList(t, "-f", `{{join .Imports " "}}`, schedulerPkg) {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") && !allowedImports[imp] {
			t.Errorf("scheduler imports %s, outside its allowed set", imp)
		}
	}
	for _, dep := range goList(t, "-deps", schedulerPkg) {
		own := strings.HasPrefix(dep, "github.com/leasegate/leasegate/") && dep != schedulerPkg
		if slices.Contains(forbiddenDeps, dep) || own && !allowedImports[dep] {
			t.Errorf("scheduler depends on %s (forbidden)", dep)
		}
	}
}
