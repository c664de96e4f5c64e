package blocker_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies fails when blocker imports anything but the standard
// library and gate (in the style of tailscale's deptest).
func TestDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found: %v", err)
	}
	const pkg = "github.com/leasegate/leasegate/blocker"
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	allowed := map[string]bool{pkg: true, "github.com/leasegate/leasegate/gate": true}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatalf("go list -deps %s listed nothing outside the standard library, not even itself", pkg)
	}
	for _, dep := range deps {
		if !allowed[dep] {
			t.Errorf("blocker depends on %s; it may import only the standard library and gate", dep)
		}
	}
}
