package hooks

import (
	"context"
	"os"
	"path/filepath"

	"github.com/leasegate/leasegate/workspace"
)

// The path of a gated write is: find the workspace (git rev-parse), then
// classify the paths (git check-ignore) while connecting, then gate. The
// first two each start git, and the agent waits for every millisecond of
// it, so the hook guesses the workspace of the common case (cwd below a
// directory holding a .git directory) and starts classifying and
// connecting on the guess while workspace.Find runs. The guess is used
// only if Find returns the same workspace; otherwise its results are
// dropped and the work is done again on Find's answer.

// prepared is what a write needs before it can be gated: the verdicts of
// the workspace's rule on its paths, and a client of the coordinator if
// one is running.
type prepared struct {
	t   targets
	cl  Coordinator
	err error
	// closed is closed once the rule's git process has ended. The rule
	// is closed after its verdicts are handed over, while the write is
	// gated, not before: the agent need not wait for git to exit.
	closed <-chan struct{}
}

// prepare classifies ev's paths while it connects to a running
// coordinator of ws. The client is nil when none answers: none is started
// here, so a write that turns out not to be gated starts nothing.
func (h *Handler) prepare(ctx context.Context, ws *workspace.Workspace, ev Event) prepared {
	done, closed := make(chan prepared, 1), make(chan struct{})
	go func() {
		defer close(closed)
		rule, err := workspace.NewRule(ws, nil)
		if err != nil {
			done <- prepared{err: err}
			return
		}
		done <- prepared{t: classify(ws, rule, ev)}
		_ = rule.Close()
	}()
	cl, err := h.cfg.Connect(ctx, ws, false)
	if err != nil {
		cl = nil
	}
	p := <-done
	p.cl, p.closed = cl, closed
	return p
}

// release closes the client and waits for the rule's git to end.
func (p prepared) release() {
	if p.cl != nil {
		p.cl.Close()
	}
	if p.closed != nil {
		<-p.closed
	}
}

// speculation is prepare running on a guessed workspace.
type speculation struct {
	guess *workspace.Workspace
	done  chan prepared
}

// speculate starts prepare on the workspace dir is probably in, or
// returns nil when there is no simple guess.
func (h *Handler) speculate(ctx context.Context, dir string, ev Event) *speculation {
	guess := guessWorkspace(dir)
	if guess == nil {
		return nil
	}
	s := &speculation{guess: guess, done: make(chan prepared, 1)}
	go func() { s.done <- h.prepare(ctx, guess, ev) }()
	return s
}

// take returns the speculation's results if ws is the guessed workspace.
// Either way it waits for the speculation to end, and closes its client
// when the results are dropped.
func (s *speculation) take(ws *workspace.Workspace) (prepared, bool) {
	if s == nil {
		return prepared{}, false
	}
	p := <-s.done
	g := s.guess
	if ws != nil && g.Root == ws.Root && g.GitDir == ws.GitDir && g.CommonDir == ws.CommonDir && g.StateDir == ws.StateDir {
		return p, true
	}
	p.release()
	return prepared{}, false
}

// guessWorkspace walks up from dir to the first directory holding .git: a
// directory there (not a linked worktree's .git file, and without a
// commondir file) is the common checkout whose workspace is easy to tell.
func guessWorkspace(dir string) *workspace.Workspace {
	d, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	if d, err = filepath.EvalSymlinks(d); err != nil {
		return nil
	}
	for {
		fi, err := os.Stat(filepath.Join(d, ".git"))
		if err == nil {
			return guessAt(d, fi)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil
		}
		d = parent
	}
}

func guessAt(root string, git os.FileInfo) *workspace.Workspace {
	gitDir := filepath.Join(root, ".git")
	if !git.IsDir() {
		return nil
	}
	if _, err := os.Stat(filepath.Join(gitDir, "commondir")); err == nil {
		return nil
	}
	cfg, err := workspace.LoadConfig(root)
	if err != nil {
		return nil
	}
	return &workspace.Workspace{Root: root, GitDir: gitDir, CommonDir: gitDir,
		StateDir: filepath.Join(gitDir, workspace.StateDirName), Config: cfg}
}
