package integration_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// inheritingWorker starts, from a shell that opened f.txt for appending
// on descriptor 7 first, `leasegate run --as name -- sh -c script`: the
// worker inherits the descriptor.
func (r *repo) inheritingWorker(name, script string) *worker {
	r.t.Helper()
	return r.shellWorker(`exec 7>>f.txt; exec "$0" run --as "$1" -- sh -c "$2"`, name, script)
}

// shellWorker runs shell with $0 the leasegate binary, $1 name and $2
// script; its output goes to the worker's buffer unless shell redirects it.
func (r *repo) shellWorker(shell, name, script string) *worker {
	r.t.Helper()
	w := &worker{out: &syncBuffer{}, done: make(chan struct{})}
	w.cmd = exec.Command("sh", "-c", shell, bin, name, script)
	w.cmd.Dir, w.cmd.Env = r.dir, slices.Clone(r.env)
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	w.cmd.WaitDelay = time.Second
	if err := w.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	go func() {
		_ = w.cmd.Wait()
		w.code = w.cmd.ProcessState.ExitCode()
		close(w.done)
	}()
	r.t.Cleanup(func() {
		_ = w.cmd.Process.Kill()
		<-w.done
	})
	return w
}

// TestInheritedDescriptorIsHeld: alice holds f.txt; bob's worker inherits
// a descriptor open for appending to f.txt. Its lease is asked for before
// the worker starts: held like any contention, blocked at the retry, and
// on the operator's --deny the worker is never started (exit 3, naming the
// descriptor and the file). Nothing is written.
func TestInheritedDescriptorIsHeld(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	r.mustLG("acquire", "--as", "alice", "f.txt")
	bob := r.inheritingWorker("bob", "echo x >&7")
	eventually(t, 10*time.Second, "bob's contention", func() bool {
		cs := r.status().Contentions
		return len(cs) == 1 && cs[0].Requester == "bob" && cs[0].Holder.Owner.Name == "alice"
	})
	id := waitBlockerFor(t, r, "bob", 10*time.Second+retryAfter)
	if got := r.read("f.txt"); got != "old\n" {
		t.Fatalf("f.txt = %q while bob was held, want it untouched", got)
	}
	denyUntilDone(t, r, bob, id, "bob")
	out := bob.out.String()
	if bob.code != 3 || !strings.Contains(out, "descriptor 7 is open for writing on "+r.dir+"/f.txt") {
		t.Fatalf("bob exit %d, output:\n%s\nwant exit 3 naming descriptor 7 and f.txt", bob.code, out)
	}
	if got := r.read("f.txt"); got != "old\n" {
		t.Fatalf("f.txt = %q, want it untouched", got)
	}
	if h := r.holders(); h["f.txt"] != "alice" {
		t.Fatalf("f.txt held by %q, want alice", h["f.txt"])
	}
}

// TestInheritedDescriptorGrantedAtRetry: the holder releases inside the
// window; bob's worker then starts holding f.txt, and its write through
// the inherited descriptor is its own.
func TestInheritedDescriptorGrantedAtRetry(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	r.mustLG("acquire", "--as", "alice", "f.txt")
	bob := r.inheritingWorker("bob", "echo x >&7; sleep 30")
	eventually(t, 10*time.Second, "bob's contention", func() bool { return len(r.status().Contentions) == 1 })
	r.mustLG("release", "f.txt", "--as", "alice")
	eventually(t, 10*time.Second+retryAfter, "bob's write", func() bool { return r.read("f.txt") == "old\nx\n" })
	if h := r.holders(); h["f.txt"] != "bob" {
		t.Fatalf("f.txt held by %q after bob's write, want bob", h["f.txt"])
	}
	if evs := r.history("f.txt"); hasEvent(evs, gate.EventUngatedWrite) {
		t.Fatalf("bob's write reported as ungated: %+v", evs)
	}
	_ = bob
}

// TestInheritedStdoutIsHeld: `leasegate run --as bob -- CMD >> f.txt`
// while alice holds f.txt: the shell opened f.txt as the worker's stdout,
// so bob's lease is asked for before the worker starts, and held.
func TestInheritedStdoutIsHeld(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	r.mustLG("acquire", "--as", "alice", "f.txt")
	bob := r.shellWorker(`exec "$0" run --as "$1" -- sh -c "$2" >> f.txt`, "bob", "echo x")
	eventually(t, 10*time.Second, "bob's contention", func() bool {
		cs := r.status().Contentions
		return len(cs) == 1 && cs[0].Requester == "bob" && cs[0].Holder.Owner.Name == "alice"
	})
	waitBlockerFor(t, r, "bob", 10*time.Second+retryAfter)
	if got := r.read("f.txt"); got != "old\n" {
		t.Fatalf("f.txt = %q while bob was held, want it untouched", got)
	}
	_ = bob
}
