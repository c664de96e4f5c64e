package hooks_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependencies fails when hooks gains a dependency an adapter over the
// api client must not have: another adapter, a store, or a library that
// belongs to one.
func TestDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found: %v", err)
	}
	const pkg = "github.com/leasegate/leasegate/hooks"
	out, err := exec.Command(goTool, "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/leasegate/leasegate/api") {
		t.Fatalf("go list -deps %s lacks the api client; the listing is not what this test expects:\n%s", pkg, out)
	}
	forbidden := []string{
		"github.com/leasegate/leasegate/sidecar", "github.com/leasegate/leasegate/intercept",
		"github.com/leasegate/leasegate/store/bolt", "go.etcd.io/bbolt", "github.com/hanwen/go-fuse/v2",
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("hooks depends on %s (forbidden: %s)", dep, f)
			}
		}
	}
}
