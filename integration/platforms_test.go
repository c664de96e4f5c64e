package integration_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRefusedWithoutSeccomp: a binary built for a platform without the
// seccomp gate (here a Linux build with the leasegate_noseccomp tag, the
// same code path as darwin, windows or freebsd) refuses `run` at once:
// exit 2, the platform and every alternative named, and nothing started —
// no worker, no coordinator, no state in the checkout.
func TestRunRefusedWithoutSeccomp(t *testing.T) {
	nogate := filepath.Join(t.TempDir(), "leasegate")
	build := exec.Command("go", "build", "-tags", "leasegate_noseccomp", "-o", nogate, "../cmd/leasegate")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build with leasegate_noseccomp: %v\n%s", err, out)
	}
	r := newCheckout(t, map[string]string{"a.txt": "a\n"})
	cmd := exec.Command(nogate, "run", "--as", "alice", "--", "touch", "ran")
	cmd.Dir, cmd.Env = r.dir, r.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("run without seccomp = %v, want exit 2; stderr:\n%s", err, stderr.String())
	}
	for _, want := range []string{"linux/", "seccomp", "leasegate install claude-code|codex|gemini|cursor", "leasegate install git"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("run without seccomp said %q, want it to name %q", stderr.String(), want)
		}
	}
	for _, left := range []string{"ran", filepath.Join(".git", "leasegate")} {
		if _, err := os.Stat(filepath.Join(r.dir, left)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after the refusal %s exists (%v): something was started", left, err)
		}
	}
}
