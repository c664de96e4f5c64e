package gitrun_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/internal/gitrun"
)

// TestFailed: a git that could not start reads as that alone, with no
// empty stderr appended (": " at the end), and a git that ran and failed
// carries what it said.
func TestFailed(t *testing.T) {
	missing := exec.Command(filepath.Join(t.TempDir(), "git"), "status")
	err := gitrun.Failed([]string{"status"}, missing.Run(), "")
	if msg := err.Error(); strings.HasSuffix(msg, ": ") || !strings.HasPrefix(msg, "git status: ") || !errors.Is(err, exec.ErrNotFound) && !strings.Contains(msg, "no such file") {
		t.Errorf("git that could not start: %q", msg)
	}

	var stderr bytes.Buffer
	ran := exec.Command("git", "rev-parse", "--git-dir")
	ran.Dir, ran.Stderr = t.TempDir(), &stderr
	err = gitrun.Failed([]string{"rev-parse", "--git-dir"}, ran.Run(), stderr.String())
	var ee *exec.ExitError
	if msg := err.Error(); !errors.As(err, &ee) || !strings.HasPrefix(msg, "git rev-parse --git-dir: exit status ") || !strings.Contains(msg, "not a git repository") || strings.HasSuffix(msg, "\n") {
		t.Errorf("git that failed: %q", msg)
	}
}
