//go:build !windows

package sidecar

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// terminateGroup asks every process of group pgid to end: SIGTERM, and
// SIGCONT in case a blocker halted them.
func terminateGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	_ = syscall.Kill(-pgid, syscall.SIGCONT)
}

// processGone reports whether no process has pid. The reaper waits for
// the worker at once, so an exited worker leaves no zombie behind.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// stopGroup stops every process of group pgid (SIGSTOP).
func stopGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGSTOP) }

// continueGroup continues every process of group pgid (SIGCONT).
func continueGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGCONT) }

// signalName is sig as a shell names it ("SIGINT").
func signalName(sig syscall.Signal) string { return unix.SignalName(sig) }

// isDir reports whether p is a directory, not following a final symlink.
// The stat buffer stays on the stack: os.Lstat would allocate a FileInfo
// for every rename the sidecar classifies.
func isDir(p string) bool {
	var st syscall.Stat_t
	return syscall.Lstat(p, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR
}

// linkedFile returns the device and inode of the file at p, not following
// a final symlink, when it has more than one name.
func linkedFile(p string) (dev, ino uint64, ok bool) {
	var st syscall.Stat_t
	if syscall.Lstat(p, &st) != nil || st.Mode&syscall.S_IFMT == syscall.S_IFDIR || st.Nlink < 2 {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}
