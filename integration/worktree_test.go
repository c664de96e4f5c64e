package integration_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// newWorktree adds a linked worktree of main (on a new branch "wt") and
// starts the worktree's own coordinator. Its state directory lies in the
// main checkout's git dir, outside the worktree's root.
func newWorktree(t *testing.T, main *repo) (*repo, *workspace.Workspace) {
	t.Helper()
	parent, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "wt")
	main.git("worktree", "add", "-q", "-b", "wt", dir)
	ws, err := workspace.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, inside := ws.Rel(ws.StateDir); inside {
		t.Fatalf("state dir %s lies inside the worktree %s", ws.StateDir, dir)
	}
	wt := &repo{t: t, dir: dir, env: main.env, log: &bytes.Buffer{}}
	startServerAt(wt, ws.SocketPath())
	return wt, ws
}

// startServerAt starts r's coordinator and connects to it at sock, like
// repo.startServer does for a main checkout's socket.
func startServerAt(r *repo, sock string) {
	r.t.Helper()
	cmd := exec.Command(bin, "serve", "--workspace", r.dir, "--retry-after", retryAfter.String(),
		"--idle-after", idleAfter.String(), "--log-level", "debug", "--idle-exit", "0")
	cmd.Env, cmd.Dir = r.env, r.dir
	cmd.Stdout, cmd.Stderr = r.log, r.log
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.server = cmd
	r.t.Cleanup(r.stopServer)
	cl, err := api.NewClient(api.ClientConfig{Socket: sock, RetryMax: 1})
	if err != nil {
		r.t.Fatal(err)
	}
	r.client = cl
	eventually(r.t, 15*time.Second, "the worktree's coordinator", func() bool {
		_, err := cl.Health(context.Background())
		return err == nil
	})
}

// TestWorktreeStateDirRefused: a worker in a linked worktree may not
// write, remove or move the worktree's state directory, although it lies
// outside the worktree's root.
func TestWorktreeStateDirRefused(t *testing.T) {
	wt, ws := newWorktree(t, newRepo(t, nil))
	if _, err := ws.AdminToken(); err != nil { // as `serve --listen` makes it
		t.Fatal(err)
	}
	token, err := os.ReadFile(ws.AdminTokenPath())
	if err != nil {
		t.Fatal(err)
	}
	attempts := []string{
		"echo x > " + ws.AdminTokenPath(),
		"rm -f " + ws.LedgerPath(),
		"touch " + filepath.Join(ws.BlockersDir(), "fake.md"),
		"mv " + ws.StateDir + " " + ws.StateDir + ".moved",
		"mv " + ws.GitDir + " " + ws.GitDir + ".moved",
		"rm -rf " + ws.StateDir,
	}
	// Each attempt must fail; the script exits with the number of the
	// first one that succeeded.
	var script strings.Builder
	for i, a := range attempts {
		script.WriteString(a + " && exit " + strconv.Itoa(i+1) + "\n")
	}
	script.WriteString("exit 0\n")
	w := wt.worker("alice", script.String())
	if code := w.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("attempt %q succeeded; output:\n%s", attempts[code-1], w.out)
	}
	if got, err := os.ReadFile(ws.AdminTokenPath()); err != nil || !bytes.Equal(got, token) {
		t.Errorf("admin token = %q, %v after the worker, want it unchanged", got, err)
	}
	for _, p := range []string{ws.LedgerPath(), ws.BlockersDir()} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("after the worker: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(ws.BlockersDir(), "fake.md")); err == nil {
		t.Error("the worker created a file in the state directory")
	}
	if !strings.Contains(w.out.String(), "leasegate's state directory") {
		t.Errorf("no refusal notice in the worker's output:\n%s", w.out)
	}
	if _, err := wt.client.Health(context.Background()); err != nil {
		t.Errorf("coordinator after the worker: %v", err)
	}
}

// TestWorktreeGatesItsTree: in a linked worktree a write acquires a lease
// in the worktree's coordinator; the worktree's .git file and ignored paths
// are not gated; a commit there releases the committed file.
func TestWorktreeGatesItsTree(t *testing.T) {
	main := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	wt, _ := newWorktree(t, main)
	w := wt.worker("alice", "echo x >> a.txt && echo y >> b.txt && touch .git && mkdir -p build && echo o > build/out.o && "+
		"git add a.txt && git commit -qm wt && sleep 3")
	eventually(t, 8*time.Second, "a lease on b.txt and the release of committed a.txt", func() bool {
		h := wt.holders()
		return h["b.txt"] == "alice" && h["a.txt"] == ""
	})
	for p := range wt.holders() {
		if p == ".git" || strings.HasPrefix(p, "build") {
			t.Errorf("%s is leased, want it not gated", p)
		}
	}
	if code := w.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("worker exit %d; output:\n%s", code, w.out)
	}
	if got := wt.read("a.txt"); got != "a\nx\n" {
		t.Errorf("a.txt = %q, want %q", got, "a\nx\n")
	}
	var granted, released bool
	for _, e := range wt.history("a.txt") {
		granted = granted || (e.Type == gate.EventGranted && e.Actor == "alice")
		released = released || (e.Type == gate.EventReleased && strings.HasPrefix(e.Reason, "committed in "))
	}
	if !granted || !released {
		t.Errorf("history of a.txt: granted to alice %v, released on commit %v, want both", granted, released)
	}
	if h := main.holders(); len(h) != 0 {
		t.Errorf("the main checkout's coordinator holds %v, want nothing", h)
	}
}

// TestWorktreeForceAddGates: a linked worktree's index lies outside its
// root; force-adding an ignored file there still makes it gated.
func TestWorktreeForceAddGates(t *testing.T) {
	wt, _ := newWorktree(t, newRepo(t, nil))
	end := filepath.Join(t.TempDir(), "end")
	w := wt.worker("alice", "mkdir build && echo o > build/out.o && git add -f build/out.o && echo p >> build/out.o && "+waitFor(end))
	eventually(t, 8*time.Second, "a lease on the force-added build/out.o", func() bool {
		return wt.holders()["build/out.o"] == "alice"
	})
	touch(t, end)
	if code := w.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("worker exit %d; output:\n%s", code, w.out)
	}
}
