package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/workspace"
)

// TestInvalidConfigIsAUsageError: a leasegate.json that cannot be read as
// a configuration is malformed input, exit 2 as the README's table says,
// for every command and for a serve that could not start on it.
func TestInvalidConfigIsAUsageError(t *testing.T) {
	root := mustGitInit(t)
	for _, cfg := range []string{`{"cluster":`, `{"exclud": []}`, `{"pairs": ["a -> "]}`,
		`{"cluster": {"endpoints": ["127.0.0.1:2379"], "workspace": "acme/web"}}`} {
		if err := os.WriteFile(filepath.Join(root, workspace.ConfigFile), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := workspace.Find(root)
		if code, reason := classify(err); err == nil || code != exitUsage || reason != "INPUT_SCHEMA_INVALID" {
			t.Errorf("%s: find = %v, exit %d %s; want exit 2 INPUT_SCHEMA_INVALID", cfg, err, code, reason)
		}
		if code, _ := classify(&startError{err}); code != exitUsage {
			t.Errorf("%s: serve's start failure is exit %d, want 2", cfg, code)
		}
	}
}

// TestClusterEnvErrorsAreUsageErrors: an invalid LEASEGATE_CLUSTER is
// malformed input (exit 2 INPUT_SCHEMA_INVALID, naming the variable), and
// a coordinator serving another ledger than it names is exit 2
// LEDGER_MISMATCH, naming both ledgers and what named the served one.
func TestClusterEnvErrorsAreUsageErrors(t *testing.T) {
	root := mustGitInit(t)
	t.Setenv(envname.Cluster, `{"endpoints": ["127.0.0.1:2379"], "workspace": "acme/web"}`)
	_, err := workspace.Find(root)
	if code, reason := classify(err); err == nil || code != exitUsage || reason != "INPUT_SCHEMA_INVALID" ||
		!strings.Contains(err.Error(), envname.Cluster+": cluster.endpoints[0]") {
		t.Errorf("find = %v, exit %d %s; want exit 2 INPUT_SCHEMA_INVALID naming %s and the field", err, code, reason, envname.Cluster)
	}

	want := leasegate.LedgerView{Endpoints: []string{"http://e:2379"}, Workspace: "acme/web", From: envname.Cluster}
	served := leasegate.LedgerView{File: filepath.Join(root, ".git", "leasegate", "ledger.db")}
	err = &ledgerMismatchError{root: root, want: want, pid: "pid 42", serves: &served}
	if code, reason := classify(err); code != exitUsage || reason != reasonLedgerMismatch {
		t.Errorf("mismatch is exit %d %s, want 2 %s", code, reason, reasonLedgerMismatch)
	}
	for _, part := range []string{envname.Cluster + ` names workspace "acme/web" on etcd [http://e:2379]`,
		"coordinator, pid 42, of", "serves " + served.File + " (no cluster named)", "leasegate serve --stop"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("mismatch says %q, want %q in it", err, part)
		}
	}
}

// TestNoWorkTreeIsAUsageError: a command run in a bare repository (or
// inside .git) is told there is no working tree there, exit 2, as for a
// --workspace that does not exist, not git's complaint with exit 1.
func TestNoWorkTreeIsAUsageError(t *testing.T) {
	root := mustGitInit(t)
	_, err := workspace.Find(filepath.Join(root, ".git"))
	if code, reason := classify(err); err == nil || code != exitUsage || reason != reasonUsage {
		t.Errorf("find in .git = %v, exit %d %s; want exit 2 %s", err, code, reason, reasonUsage)
	}
}

// mustGitInit is a new git repository in a temporary directory, its path
// with symlinks resolved.
func mustGitInit(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git is not installed (as under Wine, which has no git.exe)")
	}
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		tb.Fatalf("git init: %v\n%s", err, out)
	}
	return root
}
