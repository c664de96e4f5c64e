//go:build linux

package integration_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// jobWorker starts `leasegate run` with run's flags args as a job of its
// own, the way a shell with job control does: the sidecar leads a process
// group, and the worker (in its own group, as the sidecar puts it) is its
// child.
func (r *repo) jobWorker(name, script string, args ...string) *worker {
	r.t.Helper()
	w := &worker{out: &syncBuffer{}, done: make(chan struct{})}
	argv := append(append([]string{"run", "--as", name}, args...), "--", "sh", "-c", script)
	w.cmd = exec.Command(bin, argv...)
	w.cmd.Dir, w.cmd.Env = r.dir, r.env
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGCONT)
		<-w.done
	})
	return w
}

// childrenOf lists the children of process pid.
func childrenOf(t testing.TB, pid int) []int {
	t.Helper()
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(s)
			out = append(out, n)
		}
	}
	return out
}

// jobGroups lists the process groups of the job whose sidecar is pid: its
// own and those of every process below it (the worker's, the reaper's).
func jobGroups(t testing.TB, pid int) []int {
	t.Helper()
	groups := []int{pid}
	for queue := childrenOf(t, pid); len(queue) > 0; queue = queue[1:] {
		if pg, err := syscall.Getpgid(queue[0]); err == nil && !slices.Contains(groups, pg) {
			groups = append(groups, pg)
		}
		queue = append(queue, childrenOf(t, queue[0])...)
	}
	return groups
}

// ownerEvents returns the ledger's events whose actor is name.
func (r *repo) ownerEvents(name string, typ gate.EventType) []gate.Event {
	r.t.Helper()
	var out []gate.Event
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := r.client.Events(ctx, 0, false, func(e gate.Event) error {
		if e.Actor == name && e.Type == typ {
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// TestStopIdleFromAnyStop: a worker stopped together with its sidecar
// (kill -STOP of the job's process groups) cannot report the stop; the
// coordinator sees the owner's process stopped, opens the stop-idle window
// itself and records that evidence, and a waiting write is granted at its
// retry.
func TestStopIdleFromAnyStop(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	holder := r.jobWorker("holder", "echo h >> a.txt; sleep 60", "--idle-after", idleAfter.String())
	eventually(t, 10*time.Second, "holder to lease a.txt", func() bool { return r.holders()["a.txt"] == "holder" })
	sidecar := holder.cmd.Process.Pid
	groups := jobGroups(t, sidecar)
	if len(groups) < 3 {
		t.Fatalf("process groups of the job %v, want the sidecar's, the reaper's and the worker's", groups)
	}
	t.Cleanup(func() {
		for _, pg := range groups {
			_ = syscall.Kill(-pg, syscall.SIGCONT)
		}
	})
	for _, pg := range groups {
		if err := syscall.Kill(-pg, syscall.SIGSTOP); err != nil {
			t.Fatalf("kill -STOP -- -%d: %v", pg, err)
		}
	}
	eventually(t, 10*time.Second, "the coordinator to open the holder's stop-idle window", func() bool {
		o, ok := r.ownerView("holder")
		return (ok && !o.StoppedAt.IsZero()) || r.holders()["a.txt"] == ""
	})
	waiter := r.jobWorker("waiter", "echo w >> a.txt", "--retry-after", retryAfter.String())
	if code := waiter.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("waiter exit %d:\n%s", code, waiter.out)
	}
	if !strings.HasSuffix(r.read("a.txt"), "w\n") {
		t.Fatalf("waiter's write missing: %q", r.read("a.txt"))
	}
	if len(r.openBlockers()) != 0 {
		t.Fatal("the waiter was blocked: the stopped holder was not released by its retry")
	}
	stops := r.ownerEvents("holder", gate.EventOwnerStopped)
	if len(stops) == 0 || !strings.Contains(stops[0].Reason, "liveness check") || !strings.Contains(stops[0].Reason, "state T") {
		t.Fatalf("owner.stopped events of holder %+v, want one naming the liveness check and state T", stops)
	}
	released := slices.ContainsFunc(r.history("a.txt"), func(e gate.Event) bool {
		return e.Type == gate.EventReleased && e.Actor == "holder" && e.Reason == "stop-idle"
	})
	if !released {
		t.Fatal("no stop-idle release of the holder's a.txt in the history")
	}
}

// processesWith lists the processes whose command line holds marker.
func processesWith(marker string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if strings.Contains(string(cmd), marker) && !isZombie(stat) {
			out = append(out, pid)
		}
	}
	return out
}

// sleeps counts the sleep processes among pids.
func sleeps(pids []int) int {
	n := 0
	for _, pid := range pids {
		if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); string(comm) == "sleep\n" {
			n++
		}
	}
	return n
}

// isZombie reports whether a /proc/PID/stat says the process has exited.
func isZombie(stat []byte) bool {
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || strings.HasPrefix(string(stat[i+1:]), " Z") || strings.HasPrefix(string(stat[i+1:]), " X")
}

// TestWorkerTreeEndsWithSidecar: kill -9 of the sidecar ends its worker
// and every descendant, a setsid'd grandchild in another session and a
// child in another process group included, within a second.
func TestWorkerTreeEndsWithSidecar(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	const marker = "61.4142"
	w := r.worker("alice", "echo x >> a.txt; setsid sleep "+marker+" & "+
		"(set -m; sleep "+marker+") & sleep "+marker+"; wait")
	eventually(t, 10*time.Second, "the worker's three sleeps", func() bool { return sleeps(processesWith(marker)) == 3 })
	eventually(t, 10*time.Second, "alice's lease", func() bool { return r.holders()["a.txt"] == "alice" })
	killed := time.Now()
	_ = w.cmd.Process.Kill()
	eventually(t, 10*time.Second, "the worker's processes to end", func() bool { return len(processesWith(marker)) == 0 })
	took := time.Since(killed)
	t.Logf("every process of the worker ended %s after kill -9 of its sidecar", took.Round(time.Millisecond))
	// The contract's second, with slack for a loaded machine.
	if took > 3*time.Second {
		t.Fatalf("the worker's processes outlived their sidecar by %s", took)
	}
	eventually(t, 10*time.Second, "reclaim of a.txt", func() bool { return r.holders()["a.txt"] == "" })
	i := slices.IndexFunc(r.history("a.txt"), func(e gate.Event) bool { return e.Type == gate.EventReclaimed })
	if i < 0 || !strings.Contains(r.history("a.txt")[i].Reason, "reaper that kills the worker's whole tree") {
		t.Fatalf("the reclaim's evidence does not say the worker's tree ended with the sidecar: %+v", r.history("a.txt"))
	}
}

// TestStoppedJobTreeEndsWithSidecar: a job stopped with kill -STOP of its
// process group, then killed with kill -9 of its sidecar, leaves no process
// of the worker: the reaper is not in the job's group.
func TestStoppedJobTreeEndsWithSidecar(t *testing.T) {
	r := newRepo(t, nil)
	const marker = "62.7182"
	w := r.jobWorker("alice", "setsid sleep "+marker+" & sleep "+marker+"; wait")
	eventually(t, 10*time.Second, "the worker's sleeps", func() bool { return sleeps(processesWith(marker)) == 2 })
	if err := syscall.Kill(-w.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	_ = w.cmd.Process.Kill()
	eventually(t, 10*time.Second, "the worker's processes to end", func() bool { return len(processesWith(marker)) == 0 })
	t.Logf("every process of the stopped job ended %s after kill -9 of its sidecar", time.Since(killed).Round(time.Millisecond))
}

// TestRunSaysItWaitsForWhatTheWorkerLeft: a worker that exits while a
// daemon it started runs on keeps run, and its leases, until the daemon
// ends; run says so on stderr, naming the worker and how to end the
// wait, instead of hanging in silence after the agent has exited.
func TestRunSaysItWaitsForWhatTheWorkerLeft(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	const marker = "63.1415"
	w := r.worker("alice", "echo x >> a.txt; setsid sleep "+marker+" & exit 3")
	eventually(t, 10*time.Second, "run to say it waits for the daemon", func() bool {
		return strings.Contains(w.out.String(), "has exited; processes it started still run")
	})
	if got := r.holders()["a.txt"]; got != "alice" {
		t.Fatalf("a.txt held by %q while alice's daemon runs, want alice", got)
	}
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	w.wait(t, 15*time.Second)
	eventually(t, 10*time.Second, "the daemon to end", func() bool { return len(processesWith(marker)) == 0 })
}

// TestRunSaysItKillsAWorkerThatIgnoresTerm: a worker that ignores the
// SIGTERM run forwards is killed with SIGKILL after the grace period, and
// run says so on stderr rather than exiting 137 in silence.
func TestRunSaysItKillsAWorkerThatIgnoresTerm(t *testing.T) {
	r := newRepo(t, nil)
	const marker = "64.5772"
	w := r.worker("alice", "trap '' TERM; sleep "+marker)
	eventually(t, 10*time.Second, "the worker's sleep", func() bool { return sleeps(processesWith(marker)) == 1 })
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := w.wait(t, 20*time.Second); code != 137 {
		t.Fatalf("run exited %d, want 137; output:\n%s", code, w.out)
	}
	if !strings.Contains(w.out.String(), "did not exit within 5s of SIGTERM: it and the processes it started are killed with SIGKILL") {
		t.Fatalf("run did not say it killed the worker with SIGKILL; output:\n%s", w.out)
	}
}
