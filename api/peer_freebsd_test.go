package api

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestXucredPID: the pid is read from the first 4 bytes of the union that
// ends struct xucred, and a layout version other than XUCRED_VERSION
// reads as pid unknown.
func TestXucredPID(t *testing.T) {
	var cred unix.Xucred
	union := unsafe.Add(unsafe.Pointer(&cred), unsafe.Sizeof(cred)-unsafe.Sizeof(uintptr(0)))
	*(*int32)(union) = 4321
	if got := xucredPID(&cred); got != 4321 {
		t.Errorf("pid of a version %d xucred = %d, want 4321", cred.Version, got)
	}
	cred.Version = xucredVersion + 1
	if got := xucredPID(&cred); got != 0 {
		t.Errorf("pid of a version %d xucred = %d, want 0 (unknown)", cred.Version, got)
	}
}
