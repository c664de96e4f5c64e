//go:build linux && (amd64 || arm64)

package seccomp

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompData mirrors struct seccomp_data: what the BPF filter sees.
type seccompData struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

// notif mirrors struct seccomp_notif (80 bytes, the size encoded in
// SECCOMP_IOCTL_NOTIF_RECV).
//
// Trap: PID is the id of the calling *thread*, not of its process. The
// process is the Tgid in /proc/<PID>/status.
type notif struct {
	ID    uint64
	PID   uint32
	Flags uint32
	Data  seccompData
}

// notifResp mirrors struct seccomp_notif_resp (24 bytes).
type notifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// Compile-time checks that the mirrors match the ioctl sizes.
var (
	_ [unsafe.Sizeof(notif{}) - 0x50]struct{}
	_ [0x50 - unsafe.Sizeof(notif{})]struct{}
	_ [unsafe.Sizeof(notifResp{}) - 0x18]struct{}
	_ [0x18 - unsafe.Sizeof(notifResp{})]struct{}
)

// ioctl calls ioctl(fd, req, arg) and retries on EINTR.
func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	for {
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
		if errno != unix.EINTR {
			if errno != 0 {
				return errno
			}
			return nil
		}
	}
}

// recvNotif receives one notification. The kernel insists that the buffer
// is zeroed. ENOENT means the notifying thread was killed between poll and
// receive: there is nothing to answer.
func recvNotif(listener int) (notif, error) {
	var n notif
	err := ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n))
	return n, err
}

// sendResp answers a notification. ENOENT means the thread is gone (or
// was interrupted by a fatal signal); the answer is moot.
func sendResp(listener int, r notifResp) error {
	return ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r))
}

// addfdSend installs add's fd in the notifying thread and answers the
// notification with its number (SECCOMP_ADDFD_FLAG_SEND), with every
// signal blocked on the calling thread.
//
// Trap: the kernel marks the notification answered, with result 0, before
// the ioctl waits for the thread to install the fd, and a signal in that
// wait (the Go runtime sends them to preempt) takes the fd back: the
// worker's open returned 0, its stdin. Blocked, a signal for this thread
// waits until the ioctl has returned, and one for the process goes to
// another thread. An ADDFD without SEND and then a SEND is safe too, but
// wakes the worker's thread twice: a gated open took 13% longer.
func addfdSend(listener int, add *seccompNotifAddfd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all, old unix.Sigset_t
	for i := range all.Val {
		all.Val[i] = ^uint64(0)
	}
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &all, &old); err != nil {
		return err
	}
	defer unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
	add.Flags |= unix.SECCOMP_ADDFD_FLAG_SEND
	return ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_ADDFD, unsafe.Pointer(add))
}

// notifValid reports whether notification id still waits for an answer.
//
// Trap: /proc/<tid> names whatever thread has that id *now*. Reading a
// path from /proc/<tid>/mem is only meaningful if the notification is
// still valid afterwards: then the thread is still blocked in the syscall
// and the tid was not recycled.
func notifValid(listener int, id uint64) bool {
	return ioctl(listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// continueResp lets the syscall run in the kernel as if never stopped.
func continueResp(id uint64) notifResp {
	return notifResp{ID: id, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
}

// errnoResp fails the syscall with errno.
func errnoResp(id uint64, errno unix.Errno) notifResp {
	return notifResp{ID: id, Error: -int32(errno)}
}

// setSyncWakeUp asks the kernel (6.6+) to wake the notifying thread and
// the supervisor on the current CPU instead of through the scheduler's
// normal wake-up path. Each notification is a round trip between the two,
// and on this machine kind it made a gated open about 15% faster. Older
// kernels refuse the flag, which only costs that speed.
func setSyncWakeUp(listener int) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(listener),
		unix.SECCOMP_IOCTL_NOTIF_SET_FLAGS, unix.SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
	if errno != 0 {
		return errno
	}
	return nil
}
