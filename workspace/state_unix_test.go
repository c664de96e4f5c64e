//go:build !windows

package workspace_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// The modes that keep the state directory and the admin token to their
// owner. Windows shows no such modes: there they keep the ACL they inherit
// (internal/fileperm).

// TestEnsureStateDirTightensMode: a state directory found open to others
// is closed to them (0700).
func TestEnsureStateDirTightensMode(t *testing.T) {
	w := mustFind(t, mustRepo(t))
	if err := os.Mkdir(w.StateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := w.EnsureStateDir(); err != nil {
		t.Fatalf("EnsureStateDir() = %v", err)
	}
	for _, dir := range []string{w.StateDir, w.BlockersDir()} {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("mode of %s = %04o, want 0700", dir, fi.Mode().Perm())
		}
	}
}

// TestAdminTokenRefusesLooseMode: the token is written 0600 and refused
// once group or others may read it.
func TestAdminTokenRefusesLooseMode(t *testing.T) {
	w := mustFind(t, mustRepo(t))
	if _, err := w.AdminToken(); err != nil {
		t.Fatalf("AdminToken() = %v", err)
	}
	fi, err := os.Stat(w.AdminTokenPath())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode = %04o, want 0600", fi.Mode().Perm())
	}
	if err := os.Chmod(w.AdminTokenPath(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = w.AdminToken()
	if !errors.Is(err, workspace.ErrTokenExposed) {
		t.Fatalf("AdminToken() with mode 0644 = %v, want ErrTokenExposed", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "0644") || !strings.Contains(msg, "chmod 600") {
		t.Errorf("AdminToken() error = %q, want it to show the mode and the fix", msg)
	}
}
