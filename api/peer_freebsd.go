package api

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// peerPID reads the pid of the peer from its LOCAL_PEERCRED credentials:
// FreeBSD 13 and later record it there (xucredPID).
func peerPID(_ int, cred *unix.Xucred) (int, error) { return xucredPID(cred), nil }

// xucredVersion is XUCRED_VERSION of <sys/ucred.h>: the one layout of
// struct xucred that xucredPID knows.
const xucredVersion = 0

// xucredPID returns the peer's pid from cred, or 0 (pid unknown: the
// coordinator treats the peer as one it cannot see) when cred is not the
// layout read here or the kernel did not fill it in.
//
// FreeBSD 13 put cr_pid in the union that ends struct xucred, after
// cr_groups: union { void *_cr_unused1; pid_t cr_pid; }. x/sys/unix
// declares that union as its blank last field (`_ *byte`), so it starts
// one pointer before the end of unix.Xucred, and cr_pid, like every member
// of a union, is its first 4 bytes. The read is in bounds: the struct is
// the whole getsockopt buffer (its size is checked against SizeofXucred,
// the C struct's size), and a pid_t is no wider than the pointer it
// shares the union with. Kernels before 13 zero the struct before filling
// it, so there the union reads as pid 0: unknown, as before.
func xucredPID(cred *unix.Xucred) int {
	if cred.Version != xucredVersion || unsafe.Sizeof(*cred) != unix.SizeofXucred {
		return 0
	}
	union := unsafe.Add(unsafe.Pointer(cred), unsafe.Sizeof(*cred)-unsafe.Sizeof(uintptr(0)))
	return int(*(*int32)(union))
}
