package sidecar

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/workspace"
)

// worktreeSidecar is a Sidecar for /ws, a linked worktree of /main: its
// git dir, index, HEAD and state directory lie outside its root.
func worktreeSidecar(t *testing.T) *Sidecar {
	t.Helper()
	ws := &workspace.Workspace{Root: "/ws", GitDir: "/main/.git/worktrees/ws", CommonDir: "/main/.git",
		StateDir: wtState, Config: workspace.DefaultConfig()}
	return newTestSidecar(t, ws)
}

// TestDecideRefusesStateDir: every mutation that writes, moves or removes
// the state directory is refused with EACCES, wherever the directory lies,
// without asking the coordinator (the test sidecar has none). A removal of
// a directory that holds it fails with ENOTEMPTY, as the kernel would fail
// it, and without a notice: git tries it when it cleans up.
func TestDecideRefusesStateDir(t *testing.T) {
	tests := []struct {
		name     string
		worktree bool
		op       intercept.Op
		paths    []string
		want     error
		quiet    bool // refused without a notice
	}{
		{name: "ledger of a worktree", worktree: true, op: intercept.OpOpenWrite, paths: []string{wtState + "/ledger.db"}, want: syscall.EACCES},
		{name: "admin token of a worktree", worktree: true, op: intercept.OpUnlink, paths: []string{wtState + "/admin.token"}, want: syscall.EACCES},
		{name: "new blocker in a worktree's state", worktree: true, op: intercept.OpCreate, paths: []string{wtState + "/blockers/x.md"}, want: syscall.EACCES},
		{name: "state directory of a worktree itself", worktree: true, op: intercept.OpChmod, paths: []string{wtState}, want: syscall.EACCES},
		{name: "rename into a worktree's state", worktree: true, op: intercept.OpRename, paths: []string{"/tmp/x", wtState + "/coord.sock"}, want: syscall.EACCES},
		{name: "hard link of a worktree's ledger", worktree: true, op: intercept.OpLink, paths: []string{"/tmp/l", wtState + "/ledger.db"}, want: syscall.EACCES},
		{name: "rename of the worktree's git dir", worktree: true, op: intercept.OpRename, paths: []string{"/main/.git/worktrees/ws", "/tmp/ws"}, want: syscall.EACCES},
		{name: "removal of the main git dir", worktree: true, op: intercept.OpRmdir, paths: []string{"/main/.git"}, want: syscall.ENOTEMPTY, quiet: true},
		{name: "removal of a worktree's state directory", worktree: true, op: intercept.OpRmdir, paths: []string{wtState}, want: syscall.EACCES},
		{name: "a sibling sharing the state's prefix", worktree: true, op: intercept.OpCreate, paths: []string{wtState + "x"}},
		{name: "the worktree's index", worktree: true, op: intercept.OpRename, paths: []string{"/main/.git/worktrees/ws/index.lock", "/main/.git/worktrees/ws/index"}},
		{name: "the worktree's .git file", worktree: true, op: intercept.OpOpenWrite, paths: []string{"/ws/.git"}},
		{name: "a held file of a worktree", worktree: true, op: intercept.OpOpenWrite, paths: []string{"/ws/src/a.go"}},
		{name: "in-root state", op: intercept.OpCreate, paths: []string{"/ws/.git/leasegate/x"}, want: syscall.EACCES},
		{name: "rename of the root holding the state", op: intercept.OpRename, paths: []string{"/ws", "/ws2"}, want: syscall.EACCES},
		{name: "removal of git's directory", op: intercept.OpRmdir, paths: []string{"/ws/.git"}, want: syscall.ENOTEMPTY, quiet: true},
		{name: "removal of the state directory", op: intercept.OpRmdir, paths: []string{"/ws/.git/leasegate"}, want: syscall.EACCES},
		{name: "git's objects", op: intercept.OpCreate, paths: []string{"/ws/.git/objects/ab/cd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testSidecar(t, "/ws/.git/leasegate")
			if tt.worktree {
				s = worktreeSidecar(t)
			}
			var notices bytes.Buffer
			s.cfg.Notices = &notices
			m := intercept.Mutation{PID: 7, TID: 7, Op: tt.op, Syscall: "test", Paths: tt.paths}
			if err := s.Decide(context.Background(), m); !errors.Is(err, tt.want) {
				t.Errorf("Decide(%s %q) = %v, want %v", tt.op, tt.paths, err, tt.want)
			}
			if refused := strings.Contains(notices.String(), "state directory"); refused != (tt.want != nil && !tt.quiet) {
				t.Errorf("Decide(%s %q) notices %q, want a state directory refusal: %v", tt.op, tt.paths, notices.String(), tt.want != nil && !tt.quiet)
			}
		})
	}
}

// TestDecideNotesWorktreeCommit: in a linked worktree HEAD and the branches
// lie outside the root; a ref update there still hints a commit.
func TestDecideNotesWorktreeCommit(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  bool
	}{
		{name: "HEAD", paths: []string{"/main/.git/worktrees/ws/HEAD.lock", "/main/.git/worktrees/ws/HEAD"}, want: true},
		{name: "a branch", paths: []string{"/main/.git/refs/heads/wt.lock", "/main/.git/refs/heads/wt"}, want: true},
		{name: "an object", paths: []string{"/main/.git/objects/ab/tmp_obj", "/main/.git/objects/ab/cdef"}},
		{name: "a branch of another repository", paths: []string{"/other/.git/refs/heads/x.lock", "/other/.git/refs/heads/x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := worktreeSidecar(t)
			m := intercept.Mutation{PID: 7, TID: 7, Op: intercept.OpRename, Syscall: "test", Paths: tt.paths}
			if answered, _ := s.DecideNow(m); answered == tt.want {
				t.Errorf("DecideNow(rename %q) answered = %v, want %v", tt.paths, answered, !tt.want)
			}
			if err := s.Decide(context.Background(), m); err != nil {
				t.Fatalf("Decide(rename %q) = %v, want nil", tt.paths, err)
			}
			if got := len(s.commits) == 1; got != tt.want {
				t.Errorf("Decide(rename %q) commit hint = %v, want %v", tt.paths, got, tt.want)
			}
		})
	}
}

func TestIsDir(t *testing.T) {
	dir := t.TempDir()
	file, link := filepath.Join(dir, "f"), filepath.Join(dir, "l")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{dir: true, file: false, link: false, filepath.Join(dir, "missing"): false} {
		if got := isDir(p); got != want {
			t.Errorf("isDir(%q) = %v, want %v", p, got, want)
		}
	}
}
