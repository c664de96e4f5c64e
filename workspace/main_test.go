package workspace_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"

	"github.com/leasegate/leasegate/workspace"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// mustGit runs git in dir with a clean location environment and fails tb
// on error.
func mustGit(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = filterEnv(os.Environ())
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

func filterEnv(env []string) []string {
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_DIR=") && !strings.HasPrefix(kv, "GIT_WORK_TREE=") {
			out = append(out, kv)
		}
	}
	return out
}

// mustRepo makes a git repository in a temp dir with a local identity and
// returns its root, symlinks resolved.
func mustRepo(tb testing.TB) string {
	tb.Helper()
	dir := mustRealDir(tb, tb.TempDir())
	mustGit(tb, dir, "init", "-q")
	mustGit(tb, dir, "config", "user.name", "leasegate test")
	mustGit(tb, dir, "config", "user.email", "test@leasegate.invalid")
	return dir
}

func mustRealDir(tb testing.TB, dir string) string {
	tb.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return real
}

// mustWrite writes content to root/rel, creating directories.
func mustWrite(tb testing.TB, root, rel, content string) {
	tb.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func mustFind(tb testing.TB, dir string) *workspace.Workspace {
	tb.Helper()
	w, err := workspace.Find(dir)
	if err != nil {
		tb.Fatalf("Find(%q) = %v", dir, err)
	}
	return w
}

// mustRule returns the rule of w, closed at the end of the test, logging
// to the test log.
func mustRule(tb testing.TB, w *workspace.Workspace) *workspace.Rule {
	tb.Helper()
	r, err := workspace.NewRule(w, testLogger(tb))
	if err != nil {
		tb.Fatalf("NewRule = %v", err)
	}
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Errorf("Close() = %v", err)
		}
	})
	return r
}

func testLogger(tb testing.TB) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: tb.Name(), Level: hclog.Debug, Output: tbWriter{tb}})
}

type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
