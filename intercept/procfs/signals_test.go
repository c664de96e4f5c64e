//go:build linux

package procfs

import (
	"os"
	"os/signal"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestInterruptingSignals: which pending signals end a held syscall.
func TestInterruptingSignals(t *testing.T) {
	status := func(pnd, shd, blk string) []byte {
		return []byte("Name:\tx\nSigQ:\t0/1\nSigPnd:\t" + pnd + "\nShdPnd:\t" + shd + "\nSigBlk:\t" + blk + "\nSigIgn:\t0\nSigCgt:\t0\n")
	}
	cases := []struct {
		name          string
		pnd, shd, blk string
		want          unix.Signal
	}{
		{"nothing pending", "0000000000000000", "0000000000000000", "0000000000000000", 0},
		{"SIGINT for the process", "0000000000000000", "0000000000000002", "0000000000000000", unix.SIGINT},
		{"SIGTERM for the thread", "0000000000004000", "0000000000000000", "0000000000000000", unix.SIGTERM},
		{"SIGINT blocked by the thread", "0000000000000000", "0000000000000002", "0000000000000002", 0},
		{"SIGURG, SIGCHLD, SIGWINCH, SIGCONT, SIGSTOP", "0000000008470000", "0000000000000000", "0000000000000000", 0},
		{"SIGWINCH and SIGHUP", "0000000008000001", "0000000000000000", "0000000000000000", unix.SIGHUP},
		{"a real-time signal", "0000000400000000", "0000000000000000", "0000000000000000", unix.Signal(35)},
		{"SIGALRM, SIGVTALRM, SIGPROF: timer ticks", "0000000006000000", "0000000000002000", "0000000000000000", 0},
		{"SIGALRM and SIGUSR1", "0000000000000000", "0000000000002200", "0000000000000000", unix.SIGUSR1},
	}
	for _, tc := range cases {
		ts, err := ParseThreadSignals(status(tc.pnd, tc.shd, tc.blk))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := ts.Interrupting(); got != tc.want {
			t.Errorf("%s: Interrupting() = %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := ParseThreadSignals([]byte("Name:\tx\nSigPnd:\t0\n")); err == nil {
		t.Error("a status without ShdPnd and SigBlk parsed")
	}
}

// TestReadThreadSignals reads a real thread's pending SIGUSR1, blocked so
// that it stays pending.
func TestReadThreadSignals(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := make(chan os.Signal, 1) // caught: an ignored signal is never queued
	signal.Notify(c, unix.SIGUSR1)
	defer signal.Stop(c)
	var set, old unix.Sigset_t
	set.Val[0] = 1 << (unix.SIGUSR1 - 1)
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old); err != nil {
		t.Skipf("pthread_sigmask: %v", err)
	}
	defer func() { _ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil) }()
	tid := unix.Gettid()
	if err := unix.Tgkill(os.Getpid(), tid, unix.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	ts, err := ReadThreadSignals(tid)
	if err != nil {
		t.Fatal(err)
	}
	if ts.Pending&Bit(unix.SIGUSR1) == 0 || ts.Blocked&Bit(unix.SIGUSR1) == 0 {
		t.Fatalf("SIGUSR1 pending %v, blocked %v; want both", ts.Pending&Bit(unix.SIGUSR1) != 0, ts.Blocked&Bit(unix.SIGUSR1) != 0)
	}
	if s := ts.Interrupting(); s == unix.SIGUSR1 {
		t.Fatal("a blocked SIGUSR1 interrupts")
	}
}
