package sidecar

import (
	"io"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/workspace"
)

// testSidecar is a Sidecar for the workspace /ws whose worker holds
// src/a.go and the subtree new/**.
func testSidecar(t *testing.T, stateDir string) *Sidecar {
	t.Helper()
	ws := &workspace.Workspace{Root: "/ws", GitDir: "/ws/.git", CommonDir: "/ws/.git", StateDir: stateDir, Config: workspace.DefaultConfig()}
	return newTestSidecar(t, ws)
}

// newTestSidecar is a Sidecar for ws, without a worker or coordinator,
// whose worker holds src/a.go, app/[id]/page.tsx and the subtree new/**.
func newTestSidecar(tb testing.TB, ws *workspace.Workspace) *Sidecar {
	tb.Helper()
	rule, err := workspace.NewRule(ws, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { rule.Close() })
	s := &Sidecar{cfg: Config{Workspace: ws, Notices: io.Discard}, rule: rule, held: newHeld(clock.New()), commits: make(chan struct{}, 1)}
	s.held.hear(time.Time{}, leasegate.Beat{}) // a coordinator of one machine: the cache needs no bound
	s.held.files["src/a.go"] = true
	s.held.files[`app/\[id]/page.tsx`] = true // a lease names app/[id]/page.tsx so
	s.held.globs = append(s.held.globs, "new/**")
	return s
}

// wtState is the state directory of a linked worktree /ws of /main.
const wtState = "/main/.git/worktrees/ws/leasegate"

// TestDecideNow checks which mutations the sidecar answers without the
// coordinator (always allowing them) and which it leaves to Decide.
func TestDecideNow(t *testing.T) {
	tests := []struct {
		name     string
		stateDir string // default /ws/.git/leasegate
		op       intercept.Op
		paths    []string
		answered bool
	}{
		{name: "outside the workspace", op: intercept.OpCreate, paths: []string{"/tmp/x"}, answered: true},
		{name: "sibling sharing the root's prefix", op: intercept.OpCreate, paths: []string{"/wsx/src/b.go"}, answered: true},
		{name: "the root itself", op: intercept.OpChmod, paths: []string{"/ws"}, answered: true},
		{name: "mkdir -p through the root that holds the state", op: intercept.OpMkdir, paths: []string{"/ws"}, answered: true},
		{name: "mkdir -p through a directory holding an outside state directory", stateDir: wtState, op: intercept.OpMkdir, paths: []string{"/main/.git"}, answered: true},
		{name: "held file", op: intercept.OpOpenWrite, paths: []string{"/ws/src/a.go"}, answered: true},
		{name: "in a held subtree", op: intercept.OpUnlink, paths: []string{"/ws/new/deep/f"}, answered: true},
		{name: "file not held", op: intercept.OpOpenWrite, paths: []string{"/ws/src/b.go"}},
		{name: "held file whose name holds a class", op: intercept.OpOpenWrite, paths: []string{"/ws/app/[id]/page.tsx"}, answered: true},
		{name: "file beside it that the class would match", op: intercept.OpOpenWrite, paths: []string{"/ws/app/i/page.tsx"}},
		{name: "a directory whose name a held subtree's name matches as a glob", op: intercept.OpOpenWrite, paths: []string{"/ws/[mn]ew/x"}},
		{name: "rename from outside into a held subtree", op: intercept.OpRename, paths: []string{"/tmp/x", "/ws/new/x"}, answered: true},
		{name: "rename of a held file onto one not held", op: intercept.OpRename, paths: []string{"/ws/src/a.go", "/ws/src/b.go"}},
		{name: "git's objects", op: intercept.OpCreate, paths: []string{"/ws/.git/objects/ab/cdef"}, answered: true},
		{name: "a directory in git's directory", op: intercept.OpMkdir, paths: []string{"/ws/.git/objects/ab"}, answered: true},
		{name: "git's directory itself holds the state", op: intercept.OpMkdir, paths: []string{"/ws/.git"}},
		{name: "rename in git's directory: a commit may land", op: intercept.OpRename, paths: []string{"/ws/.git/HEAD.lock", "/ws/.git/HEAD"}},
		{name: "removal of git's directory holds the state", op: intercept.OpRmdir, paths: []string{"/ws/.git"}},
		{name: "git's index changes what is ignored", op: intercept.OpRename, paths: []string{"/ws/.git/index.lock", "/ws/.git/index"}},
		{name: "a .gitignore changes what is ignored", op: intercept.OpOpenWrite, paths: []string{"/ws/new/.gitignore"}},
		{name: "the state directory", op: intercept.OpCreate, paths: []string{"/ws/.git/leasegate/x"}},
		{name: "a state directory outside the root", stateDir: wtState, op: intercept.OpCreate, paths: []string{wtState + "/ledger.db"}},
		{name: "a rename of the directory holding an outside state directory", stateDir: wtState, op: intercept.OpRename, paths: []string{"/main/.git/worktrees/ws", "/tmp/ws"}},
		{name: "a removal of the directory holding an outside state directory", stateDir: wtState, op: intercept.OpRmdir, paths: []string{"/main/.git/worktrees"}},
		{name: "a file beside an outside state directory", stateDir: wtState, op: intercept.OpCreate, paths: []string{"/main/.git/worktrees/ws/leasegatex"}, answered: true},
		{name: "a rename of the root holds the state", op: intercept.OpRename, paths: []string{"/ws", "/ws2"}},
		{name: "a symlink's target may be reported as written", op: intercept.OpSymlink, paths: []string{"/ws/new/l", "/ws/new/t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stateDir := tt.stateDir
			if stateDir == "" {
				stateDir = "/ws/.git/leasegate"
			}
			s := testSidecar(t, stateDir)
			m := intercept.Mutation{PID: 1, TID: 1, Op: tt.op, Syscall: "test", Paths: tt.paths}
			answered, err := s.DecideNow(m)
			if answered != tt.answered || err != nil {
				t.Errorf("DecideNow(%s %q) = %v, %v, want %v, nil", tt.op, tt.paths, answered, err, tt.answered)
			}
		})
	}
}
