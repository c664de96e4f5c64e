package integration_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/intercept/fuse"
)

// gates are the gates `run` offers here: seccomp, and fuse where the
// machine can mount its view (CI must).
func gates(t *testing.T) []string {
	err := fuse.Available()
	if err == nil && os.Geteuid() != 0 {
		err = fuse.ErrMountRefused
	}
	switch {
	case err == nil:
		return []string{"seccomp", "fuse"}
	case os.Getenv("CI") == "true":
		t.Fatalf("CI must run the FUSE gate: %v", err)
	}
	t.Logf("FUSE gate not tested here: %v", err)
	return []string{"seccomp"}
}

// gateCases are the contract through `run --gate G`: each body runs once
// for every gate.
var gateCases = []struct {
	name string
	body func(t *testing.T, gate string)
}{
	{"held, retried, blocked, resumed", heldRetriedBlockedResumed},
	{"release on exit", releaseOnExit},
	{"shell writes gated", shellWritesGated},
	{"outside and git's directory not gated", outsideAndGitNotGated},
	{"state directory refused", stateDirRefused},
}

// TestGateContract runs each contract case under each gate.
func TestGateContract(t *testing.T) {
	for _, g := range gates(t) {
		t.Run(g, func(t *testing.T) {
			for _, tc := range gateCases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.body(t, g)
				})
			}
		})
	}
}

// newGateRepo is newRepo whose workers run under gate.
func newGateRepo(t *testing.T, gate string, files map[string]string) *repo {
	r := newRepo(t, files)
	r.gate = gate
	return r
}

// heldRetriedBlockedResumed: a write to a file another owner holds is
// held, with a contention heartbeat whose retry is the shortened window
// after the denial; still held at the retry, it is blocked and the worker
// halted; released and resolved with --retry, the write is made and the
// worker goes on.
func heldRetriedBlockedResumed(t *testing.T, gate string) {
	r := newGateRepo(t, gate, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	w := r.worker("writer", "echo new >> a.txt; echo went-on")
	eventually(t, 5*time.Second, "contention", func() bool { return len(r.status().Contentions) == 1 })
	if con := r.status().Contentions[0]; con.RetryAt.Sub(con.FirstDeniedAt) != retryAfter {
		t.Fatalf("retry scheduled %s after the denial, want %s", con.RetryAt.Sub(con.FirstDeniedAt), retryAfter)
	}
	id := waitBlockerFor(t, r, "writer", 20*time.Second)
	eventually(t, 5*time.Second, "the halt notice", func() bool { return strings.Contains(w.out.String(), "is halted") })
	select {
	case <-w.done:
		t.Fatalf("the blocked worker ended before the operator resolved it:\n%s", w.out)
	case <-time.After(300 * time.Millisecond):
	}
	if got := r.read("a.txt"); got != "a\n" {
		t.Fatalf("a.txt = %q while blocked, want it untouched", got)
	}
	r.mustLG("release", "a.txt", "--as", "holder")
	r.mustLG("resolve", id, "--retry")
	if code := w.wait(t, 20*time.Second); code != 0 || !strings.Contains(w.out.String(), "went-on") {
		t.Fatalf("writer exit %d after resolve --retry:\n%s", code, w.out)
	}
	if got := r.read("a.txt"); got != "a\nnew\n" {
		t.Fatalf("a.txt = %q after resolve --retry, want the write made", got)
	}
}

// releaseOnExit: the worker's writes lease their files, and its exit
// releases them. Under fuse the worker sees the workspace through the view.
func releaseOnExit(t *testing.T, gate string) {
	r := newGateRepo(t, gate, map[string]string{"a.txt": "a\n"})
	end := filepath.Join(t.TempDir(), "end")
	w := r.worker("alice", "echo x >> a.txt; echo n > new.txt; echo views=$(grep -c ' fuse.leasegate ' /proc/self/mounts); "+waitFor(end))
	eventually(t, 5*time.Second, "alice's leases", func() bool {
		h := r.holders()
		return h["a.txt"] == "alice" && h["new.txt"] == "alice"
	})
	touch(t, end)
	if code := w.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, w.out)
	}
	eventually(t, 3*time.Second, "release on exit", func() bool { return len(r.holders()) == 0 })
	if want := map[string]string{"seccomp": "views=0", "fuse": "views=1"}[gate]; !strings.Contains(w.out.String(), want) {
		t.Fatalf("worker under --gate %s: want %s:\n%s", gate, want, w.out)
	}
}

// shellWritesGated: sed -i, a redirect, mv onto a file and rm -rf of a
// directory, each on what another owner holds, are blocked; denied, they
// fail and change nothing.
func shellWritesGated(t *testing.T, gate string) {
	r := newGateRepo(t, gate, map[string]string{"s.txt": "old\n", "r.txt": "old\n", "m.txt": "old\n",
		"other.txt": "other\n", "d/keep.txt": "keep\n", "d/sub/x.txt": "x\n"})
	r.mustLG("acquire", "--as", "holder", "s.txt", "r.txt", "m.txt", "d/**")
	w := r.worker("writer", "sed -i s/old/new/ s.txt; echo new > r.txt; mv other.txt m.txt; rm -rf d; exit 0")
	id := waitBlockerFor(t, r, "writer", 20*time.Second)
	denyUntilDone(t, r, w, id, "writer")
	for name, want := range map[string]string{"s.txt": "old\n", "r.txt": "old\n", "m.txt": "old\n", "d/keep.txt": "keep\n", "d/sub/x.txt": "x\n"} {
		if got := r.read(name); got != want {
			t.Errorf("%s = %q after denied writes, want %q", name, got, want)
		}
	}
	if !strings.Contains(w.out.String(), "EBUSY") {
		t.Errorf("worker output does not report EBUSY:\n%s", w.out)
	}
}

// outsideAndGitNotGated: writes outside the workspace and in git's
// directory (a commit) pass at once, leasing nothing there.
func outsideAndGitNotGated(t *testing.T, gate string) {
	r := newGateRepo(t, gate, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	outside := t.TempDir()
	w := r.worker("writer", "echo o > "+filepath.Join(outside, "o.txt")+" && echo n > .git/leasegate-note && git status --short >/dev/null")
	if code := w.wait(t, retryAfter); code != 0 {
		t.Fatalf("writer exit %d:\n%s", code, w.out)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "o.txt")); err != nil || string(b) != "o\n" {
		t.Fatalf("write outside the workspace: %q, %v", b, err)
	}
	if len(r.status().Contentions) != 0 {
		t.Fatal("a write outside the gate met contention")
	}
	if h := r.holders(); len(h) != 1 || h["a.txt"] != "holder" {
		t.Fatalf("leases %v, want only holder's a.txt", h)
	}
}

// stateDirRefused: a worker may never write leasegate's state directory.
func stateDirRefused(t *testing.T, gate string) {
	r := newGateRepo(t, gate, nil)
	token := filepath.Join(r.dir, ".git/leasegate/admin.token")
	before, _ := os.ReadFile(token)
	w := r.worker("alice", "echo x > .git/leasegate/admin.token")
	if code := w.wait(t, 10*time.Second); code == 0 {
		t.Fatal("writing the state directory succeeded")
	}
	if after, _ := os.ReadFile(token); string(after) != string(before) {
		t.Fatalf("admin.token changed: %q -> %q", before, after)
	}
	if _, err := r.client.Status(context.Background()); err != nil {
		t.Fatalf("coordinator after the refused write: %v", err)
	}
}

// TestGateRefusals: an unknown --gate, and a --fuse-cache that is negative
// or given without --gate fuse, are usage errors; --gate fuse
// where the view cannot be mounted (here: not root) is refused at once,
// exit 2 RUN_UNSUPPORTED naming the cause, with nothing started.
func TestGateRefusals(t *testing.T) {
	r := newCheckout(t, nil)
	for _, tc := range []struct{ args, want string }{
		{"--gate bogus", `--gate "bogus"`},
		{"--fuse-cache 1s", "--fuse-cache 1s: want zero or more, with --gate fuse"},
		{"--gate fuse --fuse-cache -1s", "--fuse-cache -1s"},
	} {
		args := append(append([]string{"run"}, strings.Fields(tc.args)...), "--as", "w", "--", "touch", "ran")
		if _, errs, code := r.lg(args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Fatalf("run %s: exit %d, %q; want 2 saying %q", tc.args, code, errs, tc.want)
		}
	}
	// nobody can reach neither the test's binary nor the checkout (both
	// in 0700 directories): a copy it can run, from /, naming the
	// workspace; the refusal comes before the workspace is looked at.
	nobodyBin, open := nobodyBinary(t)
	cmd := exec.Command(nobodyBin, "run", "--workspace", r.dir, "--gate", "fuse", "--as", "w", "--", "touch", filepath.Join(open, "ran"))
	cmd.Dir, cmd.Env = "/", r.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "CAP_SYS_ADMIN") {
		t.Fatalf("--gate fuse as nobody: %v, %s; want exit 2 naming the cause", err, out)
	}
	if _, err := os.Stat(filepath.Join(open, "ran")); err == nil {
		t.Fatal("the refused worker ran")
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".git/leasegate/coord.sock")); err == nil {
		t.Fatal("the refused run started a coordinator")
	}
}
