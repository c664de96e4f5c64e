package store_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// allowedDeps are the only non-standard packages the contract and its
// conformance suite may reach, even transitively: no backend, no database
// or network client.
var allowedDeps = map[string][]string{
	"github.com/leasegate/leasegate/store": {
		"github.com/leasegate/leasegate/gate",
	},
	"github.com/leasegate/leasegate/store/storetest": {
		"github.com/leasegate/leasegate/gate",
		"github.com/leasegate/leasegate/store",
	},
}

func TestDependencies(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	for pkg, allowed := range allowedDeps {
		out, err := exec.Command(gobin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep != pkg && !slices.Contains(allowed, dep) {
				t.Errorf("%s depends on %s; allowed: %v", pkg, dep, allowed)
			}
		}
	}
}
