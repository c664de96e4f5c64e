package liveness_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependencies fails when liveness gains a dependency it must not have,
// directly or through gopsutil (in the style of tailscale's deptest).
func TestDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found: %v", err)
	}
	const pkg = "github.com/leasegate/leasegate/liveness"
	out, err := exec.Command(goTool, "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/shirou/gopsutil/v3/process") {
		t.Fatalf("go list -deps %s lacks gopsutil; the listing is not what this test expects:\n%s", pkg, out)
	}
	forbidden := []string{"go.etcd.io/bbolt", "net/http", "github.com/hanwen/go-fuse/v2"}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("liveness depends on %s (forbidden: %s)", dep, f)
			}
		}
	}
}
