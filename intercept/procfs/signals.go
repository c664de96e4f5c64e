//go:build linux

package procfs

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// SigMask is a kernel signal set as /proc/PID/status prints it: bit n-1
// is signal n.
type SigMask uint64

// Bit is the mask of signal s alone.
func Bit(s unix.Signal) SigMask { return 1 << (uint(s) - 1) }

// notInterrupting are the signals whose default action is to be ignored,
// to stop or to continue. A program that catches one of them (Go's
// runtime catches SIGURG to preempt goroutines, shells catch SIGCHLD and
// SIGWINCH) expects its syscalls to be restarted, so they never end a
// wait; a halt's SIGSTOP and SIGCONT are among them.
const notInterrupting = SigMask(1<<(unix.SIGCHLD-1) | 1<<(unix.SIGCONT-1) | 1<<(unix.SIGSTOP-1) | 1<<(unix.SIGTSTP-1) |
	1<<(unix.SIGTTIN-1) | 1<<(unix.SIGTTOU-1) | 1<<(unix.SIGURG-1) | 1<<(unix.SIGWINCH-1))

// timerSignals are the signals interval timers send: SIGALRM (alarm,
// setitimer's ITIMER_REAL, which git's progress display sets to tick every
// second), SIGVTALRM and SIGPROF (profilers). A program catches them to
// update a display or take a sample, with a handler that restarts the
// interrupted syscall (SA_RESTART): git assumes an unlink never fails with
// EINTR and gives up the whole reset or checkout when it does. So they
// never end a wait; the handler runs once the held syscall is decided.
// Uncaught, their default action ends the process, and the kernel ends the
// wait itself. The kernel shows no handler's SA_RESTART to another
// process, so a program that relies on a timer to cut short a write
// (alarm() around it, its handler without SA_RESTART) waits for the gate's
// decision instead.
const timerSignals = SigMask(1<<(unix.SIGALRM-1) | 1<<(unix.SIGVTALRM-1) | 1<<(unix.SIGPROF-1))

// ThreadSignals are the signal sets of one thread.
type ThreadSignals struct {
	Pending SigMask // the thread's own (SigPnd) and its process's (ShdPnd)
	Blocked SigMask // SigBlk
}

// Interrupting returns the lowest signal pending for the thread, not
// blocked by it, whose default action ends the process, other than a
// timer's (timerSignals): such a signal interrupts a blocking syscall
// natively (its handler runs, or the process ends), so a held syscall must
// end too. Zero when there is none.
func (ts ThreadSignals) Interrupting() unix.Signal {
	m := ts.Pending &^ ts.Blocked &^ notInterrupting &^ timerSignals
	for s := unix.Signal(1); s <= 64; s++ {
		if m&Bit(s) != 0 {
			return s
		}
	}
	return 0
}

// ReadThreadSignals reads thread tid's signal sets from /proc/TID/status.
func ReadThreadSignals(tid int) (ThreadSignals, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return ThreadSignals{}, err
	}
	return ParseThreadSignals(b)
}

// ParseThreadSignals parses the signal sets out of a /proc/TID/status.
func ParseThreadSignals(b []byte) (ThreadSignals, error) {
	var ts ThreadSignals
	found := 0
	for line := range bytes.Lines(b) {
		key, val, ok := bytes.Cut(bytes.TrimSpace(line), []byte(":"))
		if !ok {
			continue
		}
		var dst *SigMask
		switch string(key) {
		case "SigPnd", "ShdPnd":
			dst = &ts.Pending
		case "SigBlk":
			dst = &ts.Blocked
		default:
			continue
		}
		m, err := strconv.ParseUint(string(bytes.TrimSpace(val)), 16, 64)
		if err != nil {
			return ThreadSignals{}, fmt.Errorf("%s in /proc status: %w", key, err)
		}
		*dst |= SigMask(m)
		found++
	}
	if found != 3 {
		return ThreadSignals{}, fmt.Errorf("/proc status: %d of SigPnd, ShdPnd, SigBlk found", found)
	}
	return ts, nil
}
