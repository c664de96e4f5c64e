package workspace_test

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

func TestStatePaths(t *testing.T) {
	w := &workspace.Workspace{StateDir: "/r/.git/leasegate"}
	tests := []struct{ name, got, want string }{
		{name: "SocketPath", got: w.SocketPath(), want: "/r/.git/leasegate/coord.sock"},
		{name: "LedgerPath", got: w.LedgerPath(), want: "/r/.git/leasegate/ledger.db"},
		{name: "AdminTokenPath", got: w.AdminTokenPath(), want: "/r/.git/leasegate/admin.token"},
		{name: "BlockersDir", got: w.BlockersDir(), want: "/r/.git/leasegate/blockers"},
	}
	for _, tt := range tests {
		if tt.want = filepath.FromSlash(tt.want); tt.got != tt.want {
			t.Errorf("%s() = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// Everything leasegate keeps stays out of `git status`, even with
// --ignored and every untracked file listed.
func TestStateInvisibleToGitStatus(t *testing.T) {
	repo := mustRepo(t)
	w := mustFind(t, repo)
	if _, err := w.AdminToken(); err != nil {
		t.Fatalf("AdminToken() = %v", err)
	}
	mustWrite(t, w.BlockersDir(), "b1.md", "blocked\n")
	mustWrite(t, w.StateDir, "ledger.db", "x")
	if out := mustGit(t, repo, "status", "--porcelain", "--ignored", "--untracked-files=all"); out != "" {
		t.Errorf("git status after writing state = %q, want nothing", out)
	}
}

func TestEnsureStateDirRefusesSymlink(t *testing.T) {
	w := mustFind(t, mustRepo(t))
	mustSymlink(t, t.TempDir(), w.StateDir)
	if err := w.EnsureStateDir(); err == nil {
		t.Errorf("EnsureStateDir() with a symlinked state dir = nil, want an error")
	}
}

// A state directory another user owns is refused, to root as well: the
// files a coordinator started there would be root's, 0600, and lock the
// directory's user out of its own ledger.
func TestEnsureStateDirRefusesAnotherUsers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving the state directory to another user needs root")
	}
	w := mustFind(t, mustRepo(t))
	if err := os.Mkdir(w.StateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(w.StateDir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	err := w.EnsureStateDir()
	var fe *workspace.ForeignStateError
	if !errors.As(err, &fe) || fe.UID != 65534 || fe.Path != w.StateDir {
		t.Fatalf("EnsureStateDir() in uid 65534's state dir = %v, want a *ForeignStateError naming it", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "root starts no coordinator there") || !strings.Contains(msg, "`leasegate serve`") {
		t.Errorf("EnsureStateDir() as root = %q, want it to say root starts none and how to start one", msg)
	}
	if _, err := os.Stat(w.BlockersDir()); err == nil {
		t.Error("EnsureStateDir() refused the state dir but made its blockers dir")
	}
	if err := w.CheckStateOwner(); err != nil {
		t.Errorf("CheckStateOwner() as root = %v, want nil: root reaches any user's coordinator", err)
	}
}

func TestAdminToken(t *testing.T) {
	w := mustFind(t, mustRepo(t))
	tok, err := w.AdminToken()
	if err != nil {
		t.Fatalf("AdminToken() = %v", err)
	}
	if b, err := hex.DecodeString(tok); err != nil || len(b) != workspace.AdminTokenBytes {
		t.Errorf("AdminToken() = %q, want %d bytes of hex", tok, workspace.AdminTokenBytes)
	}
	again, err := w.AdminToken()
	if err != nil || again != tok {
		t.Errorf("AdminToken() again = %q, %v, want the same %q", again, err, tok)
	}
}

func TestAdminTokenRefusesBadFiles(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, w *workspace.Workspace)
	}{
		{name: "malformed", setup: func(t *testing.T, w *workspace.Workspace) {
			if err := os.WriteFile(w.AdminTokenPath(), []byte("secret\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "symlink", setup: func(t *testing.T, w *workspace.Workspace) {
			target := filepath.Join(t.TempDir(), "tok")
			if err := os.WriteFile(target, []byte(strings.Repeat("ab", 32)), 0o600); err != nil {
				t.Fatal(err)
			}
			mustSymlink(t, target, w.AdminTokenPath())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := mustFind(t, mustRepo(t))
			if err := w.EnsureStateDir(); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, w)
			if tok, err := w.AdminToken(); err == nil {
				t.Errorf("AdminToken() = %q, nil, want an error", tok)
			}
		})
	}
}
