//go:build linux && (amd64 || arm64)

package seccomp

import (
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// sigMask is a kernel signal set as /proc/PID/status prints it: bit n-1
// is signal n.
type sigMask uint64

func bit(s unix.Signal) sigMask { return 1 << (uint(s) - 1) }

// notInterrupting are the signals whose default action is to be ignored,
// to stop or to continue. A program that catches one of them (Go's
// runtime catches SIGURG to preempt goroutines, shells catch SIGCHLD and
// SIGWINCH) expects its syscalls to be restarted, so they never end a
// wait; a halt's SIGSTOP and SIGCONT are among them.
const notInterrupting = sigMask(1<<(unix.SIGCHLD-1) | 1<<(unix.SIGCONT-1) | 1<<(unix.SIGSTOP-1) | 1<<(unix.SIGTSTP-1) |
	1<<(unix.SIGTTIN-1) | 1<<(unix.SIGTTOU-1) | 1<<(unix.SIGURG-1) | 1<<(unix.SIGWINCH-1))

// threadSignals are the signal sets of one thread.
type threadSignals struct {
	pending sigMask // the thread's own (SigPnd) and its process's (ShdPnd)
	blocked sigMask // SigBlk
}

// interrupting returns the lowest signal pending for the thread, not
// blocked by it, whose default action ends the process: such a signal
// interrupts a blocking syscall natively (its handler runs, or the process
// ends), so a held syscall must end too. Zero when there is none.
func (ts threadSignals) interrupting() unix.Signal {
	m := ts.pending &^ ts.blocked &^ notInterrupting
	for s := unix.Signal(1); s <= 64; s++ {
		if m&bit(s) != 0 {
			return s
		}
	}
	return 0
}

// readThreadSignals reads thread tid's signal sets from /proc/TID/status.
func readThreadSignals(tid int) (threadSignals, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return threadSignals{}, err
	}
	return parseThreadSignals(b)
}

func parseThreadSignals(b []byte) (threadSignals, error) {
	var ts threadSignals
	found := 0
	for line := range bytes.Lines(b) {
		key, val, ok := bytes.Cut(bytes.TrimSpace(line), []byte(":"))
		if !ok {
			continue
		}
		var dst *sigMask
		switch string(key) {
		case "SigPnd", "ShdPnd":
			dst = &ts.pending
		case "SigBlk":
			dst = &ts.blocked
		default:
			continue
		}
		m, err := strconv.ParseUint(string(bytes.TrimSpace(val)), 16, 64)
		if err != nil {
			return threadSignals{}, fmt.Errorf("%s in /proc status: %w", key, err)
		}
		*dst |= sigMask(m)
		found++
	}
	if found != 3 {
		return threadSignals{}, fmt.Errorf("/proc status: %d of SigPnd, ShdPnd, SigBlk found", found)
	}
	return ts, nil
}
