//go:build linux && (amd64 || arm64)

package seccomp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leasegate/leasegate/intercept"
)

// fakeTime is a monotonic clock that moves only when told.
type fakeTime struct{ t time.Duration }

func (f *fakeTime) now() time.Duration { return f.t }

// counted returns a read function that answers dir and counts its calls.
func counted(dir string, calls *int) func() (string, error) {
	return func() (string, error) {
		*calls++
		return dir, nil
	}
}

func TestLookupsRememberCwdForTTL(t *testing.T) {
	clk := &fakeTime{}
	l := &lookups{now: clk.now}
	calls := 0
	for range 3 {
		if got, _ := l.cwd(7, 1, counted("/w", &calls)); got != "/w" {
			t.Fatalf("cwd = %q, want /w", got)
		}
	}
	if calls != 1 {
		t.Fatalf("read %d times within the TTL, want 1", calls)
	}
	clk.t += lookupTTL - time.Nanosecond
	l.cwd(7, 1, counted("/w", &calls))
	if calls != 1 {
		t.Fatalf("read again before the TTL was up")
	}
	clk.t += time.Nanosecond
	l.cwd(7, 1, counted("/w", &calls))
	if calls != 2 {
		t.Fatalf("not read again once the TTL was up (%d reads)", calls)
	}
	l.cwd(8, 1, counted("/x", &calls))
	if calls != 3 {
		t.Fatalf("another thread's cwd was answered from thread 7's")
	}
}

func TestLookupsNeverRememberUnnamedCwd(t *testing.T) {
	l := &lookups{now: (&fakeTime{}).now}
	for _, dir := range []string{"/w/gone" + deletedSuffix, "pipe:[12]"} {
		calls := 0
		l.cwd(1, 1, counted(dir, &calls))
		l.cwd(1, 1, counted(dir, &calls))
		if calls != 2 {
			t.Errorf("cwd %q was remembered", dir)
		}
	}
}

func TestLookupsUnsettleForgetsAndPauses(t *testing.T) {
	clk := &fakeTime{}
	l := &lookups{now: clk.now}
	calls := 0
	l.cwd(1, 1, counted("/a", &calls))
	l.unsettle(5, 0)
	if got, _ := l.cwd(1, 1, counted("/b", &calls)); got != "/b" || calls != 2 {
		t.Fatalf("after unsettle cwd = %q after %d reads, want /b read afresh", got, calls)
	}
	// While thread 5's syscall waits for its answer nothing is
	// remembered, however long the wait: the change has not happened.
	clk.t += 10 * lookupTTL
	l.seen(6) // another thread's notification says nothing of thread 5
	l.cwd(1, 1, counted("/b", &calls))
	l.cwd(1, 1, counted("/b", &calls))
	if calls != 4 {
		t.Fatalf("remembered while the unsettling syscall was unanswered (%d reads)", calls)
	}
	// Answered: the change happens within lookupTTL.
	l.answered(5)
	clk.t += lookupTTL - time.Nanosecond
	l.cwd(1, 1, counted("/c", &calls))
	l.cwd(1, 1, counted("/c", &calls))
	if calls != 6 {
		t.Fatalf("remembered within lookupTTL of the answer (%d reads)", calls)
	}
	clk.t += time.Nanosecond
	l.cwd(1, 1, counted("/c", &calls))
	l.cwd(1, 1, counted("/c", &calls))
	if calls != 7 {
		t.Fatalf("not remembered lookupTTL after the answer (%d reads)", calls)
	}
}

func TestLookupsSettleAtTheThreadsNextNotification(t *testing.T) {
	clk := &fakeTime{}
	l := &lookups{now: clk.now}
	calls := 0
	l.unsettle(5, 0)
	l.unsettle(6, 0)
	l.answered(5)
	l.answered(6)
	l.seen(5) // thread 5 is in its next syscall: its change is done
	l.cwd(1, 1, counted("/a", &calls))
	l.cwd(1, 1, counted("/a", &calls))
	if calls != 2 {
		t.Fatalf("remembered while thread 6's change may be under way (%d reads)", calls)
	}
	l.seen(6)
	l.cwd(1, 1, counted("/a", &calls))
	l.cwd(1, 1, counted("/a", &calls))
	if calls != 3 {
		t.Fatalf("not remembered once both threads moved on (%d reads)", calls)
	}
	if n := l.nUnsettled.Load(); n != 0 {
		t.Fatalf("%d threads still counted as unsettling", n)
	}
}

func TestLookupsChdirMovesOnlyItsProcess(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	clk := &fakeTime{}
	l := &lookups{now: clk.now}
	calls := 0
	l.cwd(1, 100, counted("/a", &calls))
	l.symlinkFree(dir)
	l.unsettle(2, 100) // thread 2 of process 100 changes directory
	if len(l.cwds) != 0 || len(l.dirs) != 1 {
		t.Fatalf("chdir left %d working directories and %d directories, want 0 and 1", len(l.cwds), len(l.dirs))
	}
	// Process 100's threads read their working directory afresh until
	// the chdir has happened; process 200's is remembered meanwhile.
	l.cwd(1, 100, counted("/b", &calls))
	l.cwd(1, 100, counted("/b", &calls))
	l.cwd(3, 200, counted("/c", &calls))
	l.cwd(3, 200, counted("/c", &calls))
	if calls != 4 {
		t.Fatalf("%d reads, want 4: process 100 twice, process 200 once", calls)
	}
	l.dirs = nil
	l.symlinkFree(dir)
	if len(l.dirs) != 1 {
		t.Fatal("a directory was not remembered while a chdir was under way")
	}
	l.answered(2)
	l.seen(2)
	l.cwd(1, 100, counted("/b", &calls))
	l.cwd(1, 100, counted("/b", &calls))
	if calls != 5 {
		t.Fatalf("process 100's working directory not remembered after its chdir (%d reads)", calls)
	}
}

func TestLookupsForgetAnswerReadAcrossAChange(t *testing.T) {
	l := &lookups{now: (&fakeTime{}).now}
	calls := 0
	// The change begins, and ends, while the answer is being read: what
	// was read may be from before it.
	l.cwd(1, 1, func() (string, error) {
		calls++
		l.unsettle(5, 1)
		l.answered(5)
		l.seen(5)
		return "/old", nil
	})
	l.cwd(1, 1, counted("/new", &calls))
	if got, _ := l.cwd(1, 1, counted("/new", &calls)); got != "/new" || calls != 2 {
		t.Fatalf("cwd = %q after %d reads: an answer read across a change was remembered", got, calls)
	}
}

func TestLookupsSymlinkFree(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real, link := filepath.Join(dir, "real"), filepath.Join(dir, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	clk := &fakeTime{}
	l := &lookups{now: clk.now}
	if !l.symlinkFree(real) || l.symlinkFree(link) || l.symlinkFree(filepath.Join(link, "x")) {
		t.Fatal("symlinkFree: want real yes, link and beneath it no")
	}
	// Swap the directory for a symlink behind the cache's back.
	if err := os.Rename(real, filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "moved"), real); err != nil {
		t.Fatal(err)
	}
	if !l.symlinkFree(real) {
		t.Fatal("a yes was not remembered within the TTL")
	}
	clk.t += lookupTTL
	if l.symlinkFree(real) {
		t.Fatal("a directory swapped for a symlink was still symlink-free after the TTL")
	}
	// A no is never remembered: the symlink replaced by a directory is
	// seen at once.
	if err := os.Remove(real); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if !l.symlinkFree(real) {
		t.Fatal("a no was remembered")
	}
	l.unsettle(1, 0)
	if got := len(l.dirs); got != 0 {
		t.Fatalf("unsettle left %d directories", got)
	}
}

func TestLookupsAreBounded(t *testing.T) {
	l := &lookups{now: (&fakeTime{}).now}
	calls := 0
	for tid := range maxLookups + 10 {
		l.cwd(tid, 1, counted("/w", &calls))
	}
	if n := len(l.cwds); n > maxLookups {
		t.Fatalf("%d working directories remembered, want at most %d", n, maxLookups)
	}
}

func TestTgidTrustedForTTL(t *testing.T) {
	clk := &fakeTime{}
	c := &tgidCache{now: clk.now}
	self := os.Getpid()
	// A thread id that is no thread at all: a remembered answer is given
	// back without a check within the TTL, and checked again after it.
	c.remember(1<<22+12345, self, clk.t)
	if got, err := c.lookup(1<<22 + 12345); err != nil || got != self {
		t.Fatalf("lookup within the TTL = %d, %v; want the remembered %d", got, err, self)
	}
	clk.t += lookupTTL
	if got, err := c.lookup(1<<22 + 12345); err == nil {
		t.Fatalf("lookup after the TTL = %d; want the missing thread's error", got)
	}
	if got, err := c.lookup(self); err != nil || got != self {
		t.Fatalf("lookup(self) = %d, %v", got, err)
	}
}

func TestMovesLookups(t *testing.T) {
	for _, op := range []intercept.Op{intercept.OpRename, intercept.OpRmdir, intercept.OpSymlink, opChdir} {
		if !movesLookups(op) {
			t.Errorf("%s does not unsettle the lookups", op)
		}
	}
	for _, op := range []intercept.Op{intercept.OpCreate, intercept.OpOpenWrite, intercept.OpUnlink, intercept.OpMkdir, intercept.OpLink, intercept.OpChmod, intercept.OpUtimes} {
		if movesLookups(op) {
			t.Errorf("%s unsettles the lookups", op)
		}
	}
}
