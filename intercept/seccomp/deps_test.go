//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependencies fails when the seccomp adapter gains a dependency it
// must not have: no lease logic, no HTTP, no other adapter.
func TestDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found: %v", err)
	}
	const pkg = "github.com/leasegate/leasegate/intercept/seccomp"
	out, err := exec.Command(goTool, "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "golang.org/x/sys/unix") {
		t.Fatalf("go list -deps %s lacks x/sys/unix; the listing is not what this test expects:\n%s", pkg, out)
	}
	forbidden := []string{
		"net/http", "go.etcd.io/bbolt", "github.com/hanwen/go-fuse/v2",
		"github.com/shirou/gopsutil/v3", "github.com/hashicorp/go-retryablehttp",
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "github.com/leasegate/leasegate/") && dep != pkg {
			t.Errorf("seccomp depends on %s: adapters import no other leasegate package", dep)
		}
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("seccomp depends on %s (forbidden: %s)", dep, f)
			}
		}
	}
}
