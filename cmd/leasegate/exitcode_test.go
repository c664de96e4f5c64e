package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// TestInvalidConfigIsAUsageError: a leasegate.json that cannot be read as
// a configuration is malformed input, exit 2 as the README's table says,
// for every command and for a serve that could not start on it.
func TestInvalidConfigIsAUsageError(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
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
