//go:build linux && (amd64 || arm64)

package seccomp

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// filterFlags are the flags the worker's filter is installed with.
//
// NEW_LISTENER returns the fd the supervisor receives notifications on.
// WAIT_KILLABLE_RECV (Linux 5.19+) is the one that makes holding a syscall
// practical: once the supervisor has received a notification, only a
// fatal signal interrupts the waiting thread. Without it every handled
// signal (SIGCHLD, SIGWINCH, a Go runtime preemption SIGURG) aborts the
// wait, the syscall restarts, and the supervisor gets a new notification
// for the same call.
//
// SPEC_ALLOW (Linux 4.17+) keeps the worker's speculation controls as they
// were. Kernels whose spectre_v2_user or spec_store_bypass_disable mode is
// "seccomp" (the default before Linux 5.16) otherwise take any process with
// a filter for a sandbox and turn on STIBP and SSBD for it, which slows
// all of its code, not only the gated syscalls. The gate is not a sandbox
// (DESIGN.md §6), so the worker keeps what it would have had without it.
const filterFlags = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV |
	unix.SECCOMP_FILTER_FLAG_SPEC_ALLOW

// Available reports whether this kernel can send seccomp user
// notifications, without starting anything: nil, or an error wrapping
// ErrNoUserNotif. WAIT_KILLABLE_RECV can only be probed by installing a
// filter, so Start reports ErrNoWaitKillable when it is missing.
func Available() error {
	action := uint32(unix.SECCOMP_RET_USER_NOTIF)
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	if errno != 0 {
		return fmt.Errorf("probe seccomp actions: %v: %w", errno, ErrNoUserNotif)
	}
	return nil
}

// installFilter installs the gate's filter on the calling thread and
// returns the listener fd. The caller must have locked its OS thread and
// set no_new_privs; the filter applies to this thread and everything it
// execs or spawns.
func installFilter() (int, error) {
	prog, err := buildFilter(notifiedTable(), refusedTable)
	if err != nil {
		return -1, err
	}
	fd, errno := seccompSetFilter(filterFlags, prog)
	switch {
	case errno == 0:
		return fd, nil
	case errno == unix.EINVAL && canListen(prog):
		return -1, ErrNoWaitKillable
	case errno == unix.EINVAL || errno == unix.ENOSYS:
		return -1, fmt.Errorf("install filter: %v: %w", errno, ErrNoUserNotif)
	case errno == unix.EBUSY:
		return -1, fmt.Errorf("install filter: %v (already running under a seccomp listener?)", errno)
	}
	return -1, fmt.Errorf("install filter: %w", errno)
}

// canListen tells a kernel without WAIT_KILLABLE_RECV from one without
// user notification: it installs the filter with NEW_LISTENER alone. Only
// called on the way to exiting, so the extra filter does not matter.
func canListen(prog []unix.SockFilter) bool {
	fd, errno := seccompSetFilter(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, prog)
	if errno == 0 {
		unix.Close(fd)
	}
	return errno == 0
}

// seccompSetFilter calls seccomp(SECCOMP_SET_MODE_FILTER, flags, prog).
func seccompSetFilter(flags uintptr, prog []unix.SockFilter) (int, unix.Errno) {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	return int(r), errno
}

// setNoNewPrivs sets no_new_privs on the calling thread: required to
// install a filter without CAP_SYS_ADMIN, and inherited by the worker.
func setNoNewPrivs() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	return nil
}
