//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/intercept/intercepttest"
	"github.com/leasegate/leasegate/intercept/seccomp"
)

// TestReadsAreNotGated runs read-only tools: not one Decide call.
func TestReadsAreNotGated(t *testing.T) {
	dir := tempDir(t)
	mustWrite(t, dir, map[string]string{"f": "x", "sub/": "", "sub/g": "y", "l": "->f"})
	tests := []struct {
		name string
		argv []string
	}{
		{name: "cat", argv: []string{"cat", "f", "l", "sub/g"}},
		{name: "ls", argv: []string{"ls", "-laR", "."}},
		{name: "stat", argv: []string{"stat", "f", "l", "sub"}},
		{name: "find", argv: []string{"find", ".", "-type", "f"}},
		{name: "grep", argv: []string{"grep", "-r", "x", "."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			res := run(t, dir, rec, tt.argv...)
			if res.code != 0 {
				t.Fatalf("%q exited %d: %s", tt.argv, res.code, res.output)
			}
			if got := rec.All(); len(got) != 0 {
				t.Errorf("%q made Decide calls:%s", tt.argv, format(got))
			}
		})
	}
}

// TestGitStatusIsNotGated: git status with optional locks off reads only.
func TestGitStatusIsNotGated(t *testing.T) {
	git := mustLook(t, "git")
	dir := tempDir(t)
	mustWrite(t, dir, map[string]string{"f": "x"})
	for _, args := range [][]string{{"init", "-q"}, {"add", "f"}} {
		if out, err := exec.Command(git, append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v: %s", args, err, out)
		}
	}
	t.Setenv("GIT_OPTIONAL_LOCKS", "0")
	rec := &recorder{}
	res := run(t, dir, rec, git, "status", "--short")
	if res.code != 0 {
		t.Fatalf("git status exited %d: %s", res.code, res.output)
	}
	// git opens /dev/null read-write, which is reported: only the tree
	// must stay untouched.
	if got := rec.Under(dir); len(got) != 0 {
		t.Errorf("git status made Decide calls:%s", format(got))
	}
}

// TestDenyLeavesFilesUnchanged denies every mutation under dir with EBUSY:
// each tool fails and the file keeps its content and mode.
func TestDenyLeavesFilesUnchanged(t *testing.T) {
	scripts := []string{
		"echo x > f", "echo x >> f", "sed -i s/o/X/ f", "rm f", "mv f g", "mv g f",
		"truncate -s 0 f", "chmod 000 f", "cp g f", "ln -sf g f", "ln -f g f",
		"touch f", "mkdir d", "rmdir e", "python3 -c \"open('f', 'w')\"",
	}
	for _, script := range scripts {
		t.Run(script, func(t *testing.T) {
			if strings.HasPrefix(script, "python3") {
				mustLook(t, "python3")
			}
			dir := tempDir(t)
			mustWrite(t, dir, map[string]string{"f": "orig", "g": "other", "e/": ""})
			before := mustStat(t, filepath.Join(dir, "f"))
			rec := &recorder{Answer: denyUnder(dir, syscall.EBUSY)}
			res := sh(t, dir, rec, script)
			if res.code == 0 {
				t.Errorf("%q exited 0 under denial; output: %s", script, res.output)
			}
			if got := mustStat(t, filepath.Join(dir, "f")); got != before {
				t.Errorf("after %q: f is %q, want %q", script, got, before)
			}
			assertMissing(t, filepath.Join(dir, "d"))
			assertExists(t, filepath.Join(dir, "e"))
		})
	}
}

// TestHoldThenAllow: a Decider that blocks for a while and then allows
// makes the syscall wait and then proceed.
func TestHoldThenAllow(t *testing.T) {
	const hold = 700 * time.Millisecond
	dir := tempDir(t)
	rec := &recorder{Answer: func(ctx context.Context, m intercept.Mutation) error {
		select {
		case <-time.After(hold):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
	start := time.Now()
	res := sh(t, dir, rec, "echo held > f")
	if res.code != 0 {
		t.Fatalf("exited %d: %s", res.code, res.output)
	}
	if elapsed := time.Since(start); elapsed < hold {
		t.Errorf("write finished after %s, want at least %s", elapsed, hold)
	}
	if got := mustRead(t, filepath.Join(dir, "f")); got != "held\n" {
		t.Errorf("f = %q, want %q", got, "held\n")
	}
}

// TestKillEndsDecide: SIGKILL to a held process cancels Decide's context
// within about one validity poll, even while other gated processes (here
// its parent) keep the supervisor serving.
func TestKillEndsDecide(t *testing.T) {
	dir := tempDir(t)
	held, cancelled := make(chan int, 1), make(chan time.Time, 1)
	rec := &recorder{Answer: func(ctx context.Context, m intercept.Mutation) error {
		held <- m.PID
		<-ctx.Done()
		cancelled <- time.Now()
		return ctx.Err()
	}}
	out := &buffer{}
	s := mustStart(t, config(t, dir, rec, out, "sh", "-c", "sh -c 'echo x > f'; sleep 1"))
	pid := mustReceive(t, held, "Decide call")
	killed := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-cancelled:
		if lag := at.Sub(killed); lag > time.Second {
			t.Errorf("Decide context ended %s after SIGKILL, want under 1s", lag)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Decide context not cancelled 5s after SIGKILL")
	}
	select {
	case <-s.Done():
		t.Error("Done() closed while the worker still runs")
	default:
	}
	_ = killGroup(s.Pid())
	s.Wait()
	mustDone(t, s, 10*time.Second)
	assertMissing(t, filepath.Join(dir, "f"))
}

// TestHandledSignalDoesNotRestart: a handled signal during a hold neither
// interrupts the held syscall nor causes a second Decide call for it
// (SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV).
func TestHandledSignalDoesNotRestart(t *testing.T) {
	dir := tempDir(t)
	// The hold lasts until every signal has been sent, however slowly the
	// test runs, so that each one comes while the write is held.
	entered, release := make(chan struct{}, 8), make(chan struct{})
	var once sync.Once
	rec := &recorder{Answer: func(ctx context.Context, m intercept.Mutation) error {
		entered <- struct{}{}
		<-release
		return nil
	}}
	out := &buffer{}
	script := "trap 'echo usr1' USR1; echo x > f; echo done"
	s := mustStart(t, config(t, dir, rec, out, "sh", "-c", script))
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	mustReceive(t, entered, "Decide call")
	for range 3 {
		if err := syscall.Kill(s.Pid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	once.Do(func() { close(release) })
	state, _ := s.Wait()
	mustDone(t, s, 10*time.Second)
	if state.ExitCode() != 0 || !strings.Contains(out.String(), "usr1\ndone") {
		t.Errorf("worker exited %v with output %q, want 0 and the trap's output", state, out.String())
	}
	if got := rec.Under(dir); len(got) != 1 {
		t.Errorf("got %d Decide calls for one write, want 1:%s", len(got), format(got))
	}
}

// TestThreadsAreHeldSeparately: a syscall held in one thread does not hold
// up the others, and each mutation names the process and its thread.
func TestThreadsAreHeldSeparately(t *testing.T) {
	dir := tempDir(t)
	var fast atomic.Int32
	released := make(chan struct{})
	rec := &recorder{Answer: func(ctx context.Context, m intercept.Mutation) error {
		if filepath.Base(m.Paths[0]) != "slow" {
			if fast.Add(1) == 3 {
				close(released)
			}
			return nil
		}
		select {
		case <-released:
			return nil
		case <-time.After(5 * time.Second):
			return syscall.ETIMEDOUT
		}
	}}
	res := runProgram(t, dir, rec, "write-threads", "slow", "fast1", "fast2", "fast3")
	if res.code != 0 {
		t.Fatalf("write-threads exited %d: %s", res.code, res.output)
	}
	got := rec.Under(dir)
	threads := map[int]bool{}
	for _, m := range got {
		threads[m.TID] = true
		if m.PID != got[0].PID {
			t.Errorf("mutation %q has PID %d, want the process %d", m.Paths, m.PID, got[0].PID)
		}
	}
	if len(got) != 4 || len(threads) < 2 {
		t.Errorf("got %d mutations from %d threads, want 4 from several:%s", len(got), len(threads), format(got))
	}
}

// TestStalledNotificationIsOvertaken: an answer that takes long on the
// receiving goroutine (here DecideNow itself waits) does not hold up the
// notifications of other processes: after StallAfter another receiver
// takes them. Whichever of the two writes comes first is held until the
// other has been answered, which only a second receiver can do.
func TestStalledNotificationIsOvertaken(t *testing.T) {
	dir := tempDir(t)
	d := &pairDecider{dir: dir, second: make(chan struct{})}
	out := &buffer{}
	cfg := config(t, dir, d, out, "sh", "-c", "echo 1 > a & echo 2 > b; wait; echo 3 > c")
	cfg.StallAfter = 10 * time.Millisecond
	s := mustStart(t, cfg)
	state, err := s.Wait()
	if err != nil || state.ExitCode() != 0 {
		t.Fatalf("Wait() = %v, %v; output %q", state, err, out.String())
	}
	mustDone(t, s, 10*time.Second)
	for name, want := range map[string]string{"a": "1\n", "b": "2\n", "c": "3\n"} {
		if got := mustRead(t, filepath.Join(dir, name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// pairDecider answers at once, except that the first write under dir
// waits in DecideNow until a second one has been answered.
type pairDecider struct {
	dir    string
	first  atomic.Bool
	second chan struct{}
}

func (d *pairDecider) Decide(context.Context, intercept.Mutation) error { return nil }

func (d *pairDecider) DecideNow(m intercept.Mutation) (bool, error) {
	switch {
	case !intercepttest.Within(m.Paths[0], []string{d.dir}):
	case d.first.CompareAndSwap(false, true):
		select {
		case <-d.second:
		case <-time.After(10 * time.Second):
			return true, syscall.ETIMEDOUT
		}
	default:
		select {
		case <-d.second:
		default:
			close(d.second)
		}
	}
	return true, nil
}

// TestOrphanStaysGated: a grandchild that outlives the worker is still
// gated, and Done waits for it.
func TestOrphanStaysGated(t *testing.T) {
	dir := tempDir(t)
	rec := &recorder{}
	out := &buffer{}
	script := "setsid sh -c 'sleep 0.3; echo x > late' </dev/null >/dev/null 2>&1 &"
	s := mustStart(t, config(t, dir, rec, out, "sh", "-c", script))
	if state, err := s.Wait(); err != nil || state.ExitCode() != 0 {
		t.Fatalf("Wait() = %v, %v; output %q", state, err, out.String())
	}
	if got := rec.Under(dir); len(got) != 0 {
		t.Fatalf("mutations before the orphan wrote:%s", format(got))
	}
	select {
	case <-s.Done():
		t.Fatal("Done() closed while the orphan still runs")
	default:
	}
	mustDone(t, s, 10*time.Second)
	got := rec.Under(dir)
	if len(got) != 1 || got[0].Op != intercept.OpCreate {
		t.Errorf("orphan's write: got%s\nwant one create of late", format(got))
	}
}

// TestCloseFailsClosed: after Close, the gated syscalls of a surviving
// worker fail (ENOSYS from the kernel) instead of running unchecked.
func TestCloseFailsClosed(t *testing.T) {
	dir := tempDir(t)
	rec := &recorder{}
	out := &buffer{}
	s := mustStart(t, config(t, dir, rec, out, "sh", "-c", "sleep 0.3; echo x > f"))
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	state, _ := s.Wait()
	if state.ExitCode() == 0 {
		t.Errorf("worker exited 0 after Close; output %q", out.String())
	}
	assertMissing(t, filepath.Join(dir, "f"))
	if got := rec.All(); len(got) != 0 {
		t.Errorf("Decide calls after Close:%s", format(got))
	}
}

// TestStartErrors checks the errors callers branch on.
func TestStartErrors(t *testing.T) {
	dir := tempDir(t)
	cfg := config(t, dir, &recorder{}, &buffer{}, "no-such-command-here")
	_, err := seccomp.Start(context.Background(), cfg)
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("Start(no-such-command) = %v, want exec.ErrNotFound", err)
	}
	cfg = config(t, dir, &recorder{}, &buffer{}, "true")
	cfg.Self = "/bin/true" // never answers the handshake
	_, err = seccomp.Start(context.Background(), cfg)
	if !errors.Is(err, seccomp.ErrHandshake) {
		t.Errorf("Start(Self=/bin/true) = %v, want ErrHandshake", err)
	}
	if err := seccomp.Available(); err != nil {
		t.Errorf("Available() = %v on this kernel", err)
	}
}
