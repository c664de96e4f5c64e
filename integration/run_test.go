package integration_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// toolCase is one real tool run by a worker against a file another owner
// holds.
type toolCase struct {
	name   string
	lease  string // what the holder checks out
	script string // run in the repo by the contending worker; F is the file
	check  string // the file whose content must be unchanged
	dirty  bool   // the holder has uncommitted changes in the file
}

var toolCases = []toolCase{
	{"sh redirect", "F", "echo new > F", "F", false},
	{"sh append", "F", "echo new >> F", "F", false},
	{"sed -i", "F", "sed -i s/old/new/ F", "F", false},
	{"python write", "F", `python3 -c "open('F','w').write('new')"`, "F", false},
	{"python atomic replace", "F", `python3 -c "import os; open('F.tmp','w').write('new'); os.replace('F.tmp','F')"`, "F", false},
	{"cp onto", "F", "cp other.txt F", "F", false},
	{"mv onto", "F", "mv other.txt F", "F", false},
	{"rm", "F", "rm F", "F", false},
	{"truncate", "F", "truncate -s 0 F", "F", false},
	{"touch", "F", "touch -d 2001-01-01 F && test $(stat -c %Y F) -lt 1000000000", "F", false},
	{"chmod", "F", "chmod 600 F", "F", false},
	{"ln -s", "F", "ln -s F F.link", "F", false},
	{"ln", "F", "ln F F.hard", "F", false},
	{"git checkout -- FILE", "F", "git checkout -- F", "F", true},
	{"mkdir -p", "D/**", "mkdir -p D/new/deeper", "D/keep.txt", false},
	{"rmdir", "D/**", "rmdir D/empty", "D/keep.txt", false},
	{"multi-threaded", "F", `python3 -c "
import threading
def w(p):
    open(p,'w').write('new')
ts=[threading.Thread(target=w,args=(p,)) for p in ('F','T1.txt','T2.txt')]
[t.start() for t in ts]; [t.join() for t in ts]"`, "F", false},
	{"grandchild outlives parent", "F", "setsid sh -c 'sleep 0.3; echo new > F' & exit 0", "F", false},
}

// TestToolsAgainstContendingOwner runs each tool under `leasegate run`
// while another owner holds its file: the mutation is held, retried once,
// blocked; an operator's --deny fails it with EBUSY and the file is
// untouched.
func TestToolsAgainstContendingOwner(t *testing.T) {
	files := map[string]string{"other.txt": "other\n"}
	for i, tc := range toolCases {
		f, d := fmt.Sprintf("f%02d.txt", i), fmt.Sprintf("d%02d", i)
		files[f] = "old\n"
		files[d+"/keep.txt"] = "keep\n"
		files[d+"/empty/.keep"] = ""
		toolCases[i].script = strings.NewReplacer("F", f, "D", d).Replace(tc.script)
		toolCases[i].lease = strings.NewReplacer("F", f, "D", d).Replace(tc.lease)
		toolCases[i].check = strings.NewReplacer("F", f, "D", d).Replace(tc.check)
	}
	r := newRepo(t, files)
	for i := range toolCases {
		os.Remove(filepath.Join(r.dir, fmt.Sprintf("d%02d/empty/.keep", i)))
	}
	for i, tc := range toolCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			holder := fmt.Sprintf("holder%02d", i)
			r.mustLG("acquire", "--as", holder, tc.lease)
			if tc.dirty {
				r.write(tc.check, "the holder's uncommitted work\n")
			}
			before := r.read(tc.check)
			w := r.worker(fmt.Sprintf("worker%02d", i), tc.script)
			id := waitBlockerFor(t, r, "worker"+fmt.Sprintf("%02d", i), 20*time.Second)
			rep := mustBlocker(t, r, id)
			if rep.Holder.Owner.Name != holder || rep.RetryInterval != retryAfter {
				t.Fatalf("blocker %s: holder %s interval %s, want %s and %s", id, rep.Holder.Owner.Name, rep.RetryInterval, holder, retryAfter)
			}
			denyUntilDone(t, r, w, id, fmt.Sprintf("worker%02d", i))
			time.Sleep(100 * time.Millisecond) // a surviving grandchild finishes its failed write
			if after := r.read(tc.check); after != before {
				t.Fatalf("%s changed although denied: %q -> %q\nworker output:\n%s", tc.check, before, after, w.out)
			}
			if !strings.Contains(w.out.String(), "EBUSY") {
				t.Errorf("worker output does not report EBUSY:\n%s", w.out)
			}
		})
	}
}

// denyUntilDone denies the blocker, and each further one the worker's tool
// runs into (touch falls back from open to utimensat, mv from rename to
// copy), until the worker ends.
func denyUntilDone(t *testing.T, r *repo, w *worker, first, requester string) {
	t.Helper()
	if _, err := r.client.Resolve(context.Background(), first, blocker.ActionDeny, "test", ""); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-w.done:
			return
		case <-time.After(50 * time.Millisecond):
		}
		for _, b := range r.openBlockers() {
			if b.Requester.Name == requester {
				_, _ = r.client.Resolve(context.Background(), b.ID, blocker.ActionDeny, "test", "")
			}
		}
	}
	t.Fatalf("worker did not end; output:\n%s", w.out)
}

func waitBlockerFor(t *testing.T, r *repo, requester string, within time.Duration) string {
	t.Helper()
	var id string
	eventually(t, within, "a blocker for "+requester, func() bool {
		for _, b := range r.openBlockers() {
			if b.Requester.Name == requester {
				id = b.ID
				return true
			}
		}
		return false
	})
	return id
}

func mustBlocker(t *testing.T, r *repo, id string) blocker.Report {
	t.Helper()
	rep, err := r.client.Blocker(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestGrantedAtRetry: a denied write's one retry is scheduled exactly the
// window after the denial; the holder finishing inside the window lets the
// held write proceed (at the release, TestFreedFileWakesWaiter).
func TestGrantedAtRetry(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "old\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	w := r.worker("writer", "echo new >> a.txt")
	eventually(t, 5*time.Second, "contention", func() bool { return len(r.status().Contentions) == 1 })
	con := r.status().Contentions[0]
	if got := con.RetryAt.Sub(con.FirstDeniedAt); got != retryAfter {
		t.Fatalf("retry scheduled %s after the denial, want exactly %s", got, retryAfter)
	}
	r.mustLG("release", "a.txt", "--as", "holder")
	if code := w.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("writer exit %d:\n%s", code, w.out)
	}
	if r.read("a.txt") != "old\nnew\n" || !strings.Contains(w.out.String(), "contention") {
		t.Fatalf("content %q, output %q", r.read("a.txt"), w.out)
	}
	evs := r.history("a.txt")
	if !hasEvent(evs, gate.EventContention) {
		t.Fatalf("no contention heartbeat in the history of a.txt")
	}
}

// TestAbortEndsWorker: an operator's --abort ends the worker before it
// runs again, whether its write was halted on a blocker or still waited
// for its retry: it neither sees the failed write nor goes on to its next
// command, and it gets no grant after the abort.
func TestAbortEndsWorker(t *testing.T) {
	for _, halted := range []bool{true, false} {
		t.Run(map[bool]string{true: "blocked", false: "before the retry"}[halted], func(t *testing.T) {
			r := newRepo(t, map[string]string{"a.txt": "old\n"})
			r.mustLG("acquire", "--as", "holder", "a.txt")
			w := r.worker("writer", "echo new >> a.txt; echo ran-on; echo ran-on > after.txt")
			var id string
			if halted {
				id = waitBlockerFor(t, r, "writer", 20*time.Second)
			} else {
				eventually(t, 5*time.Second, "contention", func() bool { return len(r.status().Contentions) == 1 })
				id = r.status().Contentions[0].ID
			}
			if _, err := r.client.Resolve(context.Background(), id, blocker.ActionAbort, "test", ""); err != nil {
				t.Fatal(err)
			}
			if code := w.wait(t, 10*time.Second); code != 4 {
				t.Fatalf("writer exit %d after --abort, want 4:\n%s", code, w.out)
			}
			if strings.Contains(w.out.String(), "ran-on\n") {
				t.Errorf("the aborted worker ran its next command:\n%s", w.out)
			}
			if _, err := os.Stat(filepath.Join(r.dir, "after.txt")); err == nil {
				t.Errorf("the aborted worker wrote after.txt")
			}
			if r.read("a.txt") != "old\n" {
				t.Errorf("a.txt = %q after the abort, want it untouched", r.read("a.txt"))
			}
		})
	}
}

// TestLinkOutOfWorkspaceRefused: a worker cannot give a gated file a hard
// link outside the workspace, through which any later write would pass no
// gate (EXDEV, so link-or-copy tools copy); a link inside is granted.
func TestLinkOutOfWorkspaceRefused(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "old\n"})
	out := filepath.Join(t.TempDir(), "a-out.txt")
	w := r.worker("writer", "ln a.txt "+out+"; echo ln=$?; ln a.txt b.txt; echo in=$?")
	if code := w.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("writer exit %d:\n%s", code, w.out)
	}
	if _, err := os.Lstat(out); err == nil {
		t.Fatalf("the worker linked a.txt to %s outside the workspace:\n%s", out, w.out)
	}
	for _, want := range []string{"ln=1", "in=0", "Invalid cross-device link", "refused link of " + filepath.Join(r.dir, "a.txt")} {
		if !strings.Contains(w.out.String(), want) {
			t.Errorf("worker output lacks %q:\n%s", want, w.out)
		}
	}
}

// TestWriteThroughOutsideLinkHeld: a hard link outside the workspace, made
// by a process no sidecar gates, to a file another owner holds: a worker's
// write through it meets the holder's lease (contention, blocker), and a
// denied write leaves the file untouched.
func TestWriteThroughOutsideLinkHeld(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "old\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	out := filepath.Join(t.TempDir(), "a-out.txt")
	if err := os.Link(filepath.Join(r.dir, "a.txt"), out); err != nil {
		t.Fatal(err)
	}
	w := r.worker("writer", "echo new >> "+out)
	id := waitBlockerFor(t, r, "writer", 20*time.Second)
	if rep := mustBlocker(t, r, id); rep.Path != "a.txt" || rep.Holder.Owner.Name != "holder" {
		t.Fatalf("blocker on %s held by %s, want a.txt held by holder", rep.Path, rep.Holder.Owner.Name)
	}
	denyUntilDone(t, r, w, id, "writer")
	if got := r.read("a.txt"); got != "old\n" {
		t.Fatalf("a.txt = %q after a denied write through %s, want it untouched:\n%s", got, out, w.out)
	}
}

// TestFreeWritesAcquireAndRelease: writes to free files are granted at
// once, pairs come along, the worker's exit releases everything.
func TestFreeWritesAcquireAndRelease(t *testing.T) {
	r := newRepo(t, map[string]string{"src/a.go": "package a\n"})
	end := filepath.Join(t.TempDir(), "end")
	w := r.worker("alice", "echo '// x' >> src/a.go; echo hi > notes.md; mkdir -p build && echo o > build/out; "+waitFor(end))
	eventually(t, 5*time.Second, "alice's leases", func() bool {
		h := r.holders()
		return h["src/a.go"] == "alice" && h["src/a_test.go"] == "alice" && h["notes.md"] == "alice"
	})
	if h := r.holders(); h["build/out"] != "" || h["build"] != "" {
		t.Fatalf("an ignored path was leased: %v", h)
	}
	touch(t, end)
	if code := w.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, w.out)
	}
	eventually(t, 3*time.Second, "release on exit", func() bool { return len(r.holders()) == 0 })
}

// TestReadsNeverDelayed: a worker reading a file another owner holds is
// never held.
func TestReadsNeverDelayed(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	start := time.Now()
	w := r.worker("reader", "cat a.txt >/dev/null; ls -l a.txt >/dev/null; stat a.txt >/dev/null; git status >/dev/null; git diff >/dev/null")
	if code := w.wait(t, retryAfter); code != 0 {
		t.Fatalf("reader exit %d:\n%s", code, w.out)
	}
	if len(r.status().Contentions) != 0 {
		t.Fatal("a read caused contention")
	}
	t.Logf("reads took %s", time.Since(start).Round(time.Millisecond))
}

// TestStateDirRefused: a worker may never write leasegate's state.
func TestStateDirRefused(t *testing.T) {
	r := newRepo(t, nil)
	w := r.worker("alice", "echo x > .git/leasegate/admin.token")
	if code := w.wait(t, 10*time.Second); code == 0 {
		t.Fatal("writing the state directory succeeded")
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".git/leasegate/ledger.db")); err != nil {
		t.Fatal(err)
	}
}

// TestReleaseOnCommit: committed, clean files are released while the
// worker keeps running; a still-dirty file stays leased.
func TestReleaseOnCommit(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	end := filepath.Join(t.TempDir(), "end")
	w := r.worker("alice", "echo x >> a.txt && echo y >> b.txt && git add a.txt && git commit -qm a && "+waitFor(end))
	eventually(t, 8*time.Second, "release of committed a.txt", func() bool {
		h := r.holders()
		return h["a.txt"] == "" && h["b.txt"] == "alice"
	})
	touch(t, end)
	w.wait(t, 10*time.Second)
	if !releasedOnCommit(r, "a.txt") {
		t.Fatal("no release-on-commit event for a.txt")
	}
}

// TestStopIdle: `leasegate stop` then no mutation for the idle window
// releases the owner's leases; activity before then cancels.
func TestStopIdle(t *testing.T) {
	// The worker's second write must reach the coordinator after the stop
	// and within its idle window, on the coordinator's real clock, so the
	// worker writes once it is told the stop was made; 3 s leaves a loaded
	// machine room for a shell's poll and a gated write. (Before, the worker
	// wrote 0.8 s after its first write, and a stop that took longer to
	// arrive saw no activity after it.)
	const stopIdle = 3 * time.Second
	r := newCheckout(t, map[string]string{"a.txt": "a\n"})
	r.startServer(retryAfter, stopIdle)
	tmp := t.TempDir()
	stopped, end := filepath.Join(tmp, "stopped"), filepath.Join(tmp, "end")
	w := r.worker("alice", "echo x >> a.txt; "+waitFor(stopped)+"echo y >> a.txt; echo wrote-again; "+waitFor(end))
	eventually(t, 5*time.Second, "lease", func() bool { return r.holders()["a.txt"] == "alice" })
	r.mustLG("stop", "--as", "alice")
	stoppedAt := time.Now()
	touch(t, stopped)
	eventually(t, stopIdle, "the worker's write after the stop", func() bool { return strings.Contains(w.out.String(), "wrote-again") })
	time.Sleep(time.Until(stoppedAt.Add(stopIdle + 500*time.Millisecond))) // past the stop's release, had the write not cancelled it
	if r.holders()["a.txt"] != "alice" {
		t.Fatal("activity inside the window did not cancel the stop-idle release")
	}
	r.mustLG("stop", "--as", "alice")
	eventually(t, stopIdle+2*time.Second, "stop-idle release", func() bool { return r.holders()["a.txt"] == "" })
	touch(t, end)
	w.wait(t, 10*time.Second)
}

// TestUngatedWriteInReleasedDirectory: a directory a worker made is leased
// whole, and the coordinator's watcher leaves it unwatched while it is;
// once the worker has gone and the lease with it, an ungated write there is
// reported again (after the grace in which a change is still taken for the
// holder's), and the files the worker wrote are not.
func TestUngatedWriteInReleasedDirectory(t *testing.T) {
	r := newRepo(t, nil)
	w := r.worker("alice", "mkdir -p gen/sub && echo x > gen/sub/a.txt && sleep 1") // holds gen/** a while
	w.wait(t, 10*time.Second)
	i := 0
	eventually(t, 20*time.Second, "the ungated write in the released directory in status", func() bool {
		i++
		r.write("gen/sub/late.txt", fmt.Sprintf("written by no gated process, %d\n", i))
		_, ok := r.ungatedWrites()["gen/sub/late.txt"]
		return ok
	})
	if u, ok := r.ungatedWrites()["gen/sub/a.txt"]; ok {
		t.Fatalf("alice's gated write was reported as ungated: %+v", u)
	}
}

// TestDefaultsAreTheContract: every command that takes the windows says
// in its help that they are at most the contract's 3m0s and 30s and that
// longer is a usage error; a coordinator started with no flags has
// exactly those (TestWindowsBelongToTheOwner).
func TestDefaultsAreTheContract(t *testing.T) {
	r := newCheckout(t, nil)
	for _, cmd := range [][]string{{"run"}, {"serve"}, {"hook", "claude-code"}} {
		out, errs, _ := r.lg(append(cmd, "-h")...)
		errs = out + errs // help asked for is on stdout
		if !strings.Contains(errs, "most the contract's 3m0s") || !strings.Contains(errs, "most the contract's 30s") ||
			!strings.Contains(errs, "longer, zero or negative is a usage error") {
			t.Errorf("%s -h does not say the contract's windows:\n%s", cmd, errs)
		}
	}
}

// TestUngatedWritesReported: a write no gate saw (this test process writes
// directly) is reported in status and the ledger; a gated worker's write
// is not.
func TestUngatedWritesReported(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	w := r.worker("alice", "echo x >> a.txt")
	w.wait(t, 10*time.Second)
	r.write("sneaky.txt", "written by no gated process\n")
	eventually(t, 5*time.Second, "the ungated write in status", func() bool {
		_, ok := r.ungatedWrites()["sneaky.txt"]
		return ok
	})
	if u, ok := r.ungatedWrites()["a.txt"]; ok {
		t.Fatalf("alice's gated write was reported as ungated: %+v", u)
	}
	if !hasEvent(r.history("sneaky.txt"), gate.EventUngatedWrite) {
		t.Fatal("no write.ungated event for sneaky.txt")
	}
}

// TestGatedWriteInOwnCheckout: the holder of a check-out writes in it
// through its Claude Code hook, which grants the write at once (the check-out
// covers it, so no auto lease is taken); the write is not reported as
// ungated. A write by a process no gate saw, in the same check-out, still
// is, naming the holder.
func TestGatedWriteInOwnCheckout(t *testing.T) {
	r := newRepo(t, map[string]string{"docs/old.md": "old\n"})
	r.mustLG("acquire", "docs/**", "--as", "cc-s1")
	if out, errs, code := r.hook(toolWrite("s1", r.dir, "docs/a.md")); code != 0 {
		t.Fatalf("the hook refused the holder's write in its check-out: exit %d: %s %s", code, out, errs)
	}
	r.write("docs/a.md", "written by Claude Code once its hook allowed it\n")
	r.write("docs/b.md", "written by no gated process\n")
	eventually(t, 10*time.Second, "the ungated write of docs/b.md naming cc-s1", func() bool {
		return heldBy(r.ungatedWrites()["docs/b.md"], "cc-s1")
	})
	if u, ok := r.ungatedWrites()["docs/a.md"]; ok {
		t.Fatalf("the holder's hook-gated write was reported as ungated: %+v", u)
	}
}

// TestRunWritesInOwnCheckout: a worker run under the name that holds a
// check-out writes two files in it; each write is gated (none adds an auto
// lease), and neither is reported as ungated, while a write no gate saw is.
func TestRunWritesInOwnCheckout(t *testing.T) {
	r := newRepo(t, map[string]string{"docs/old.md": "old\n"})
	r.mustLG("acquire", "docs/**", "--as", "alice")
	if code := r.worker("alice", "echo a > docs/a.md; echo b > docs/b.md").wait(t, 30*time.Second); code != 0 {
		t.Fatalf("alice's run exited %d", code)
	}
	r.write("docs/c.md", "written by no gated process\n")
	eventually(t, 10*time.Second, "the ungated write of docs/c.md naming alice", func() bool {
		return heldBy(r.ungatedWrites()["docs/c.md"], "alice")
	})
	ungated := r.ungatedWrites()
	for _, p := range []string{"docs/a.md", "docs/b.md"} {
		if u, ok := ungated[p]; ok {
			t.Errorf("alice's gated write in her check-out was reported as ungated: %+v", u)
		}
	}
}

// TestUngatedWriteOnCheckout: a write to a file alice has checked out,
// made by a process no gate sees, is reported as ungated naming alice's
// lease (she, or anyone, may have made it), not taken silently for hers.
func TestUngatedWriteOnCheckout(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "f\n"})
	r.mustLG("acquire", "f.txt", "--as", "alice")
	i := 0
	eventually(t, 20*time.Second, "the ungated write of alice's check-out in status", func() bool {
		i++
		r.write("f.txt", fmt.Sprintf("written by no gated process, %d\n", i))
		return heldBy(r.ungatedWrites()["f.txt"], "alice")
	})
	if out := r.mustLG("status"); !strings.Contains(out, "checked out by alice") {
		t.Fatalf("status does not name alice's check-out:\n%s", out)
	}
}
