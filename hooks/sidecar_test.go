package hooks

import (
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/leasegate/leasegate/internal/envname"
)

// TestUnderSidecar: the variable alone is not enough; its pid must be an
// ancestor of the caller.
func TestUnderSidecar(t *testing.T) {
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })

	cases := []struct {
		name, env string
		want      bool
	}{
		{"unset", "", false},
		{"not a number", "sidecar", false},
		{"init", "1", false},
		{"the parent", strconv.Itoa(os.Getppid()), true},
		{"a process that is not an ancestor", strconv.Itoa(child.Process.Pid), false},
		{"no such process", "2147483646", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(envname.Sidecar, c.env)
			if got := UnderSidecar(); got != c.want {
				t.Errorf("UnderSidecar() with %s=%q = %v, want %v", envname.Sidecar, c.env, got, c.want)
			}
		})
	}
	if !isAncestor(os.Getpid(), os.Getpid()) {
		t.Error("isAncestor(self, self) = false")
	}
}
