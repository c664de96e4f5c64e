//go:build linux && (amd64 || arm64)

package seccomp

import (
	"errors"
	"os"
	"strconv"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestVerifyLink: the link of a detached tree's fd reads "/", which is not
// the file the fd leads to: unresolvable. An ordinary directory fd passes.
func TestVerifyLink(t *testing.T) {
	dir := t.TempDir()
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	proc := "/proc/self/fd/" + strconv.Itoa(fd)
	link, _ := os.Readlink(proc)
	if err := verifyLink(proc, link); err != nil {
		t.Fatalf("verifyLink(%s -> %s) = %v, want nil", proc, link, err)
	}
	tree, _, errno := unix.Syscall(unix.SYS_OPEN_TREE, uintptr(fd), uintptr(unsafe.Pointer(unsafePtr(""))), unix.AT_EMPTY_PATH|unix.OPEN_TREE_CLONE)
	if errno != 0 {
		t.Skipf("open_tree: %v (needs CAP_SYS_ADMIN)", errno)
	}
	defer unix.Close(int(tree))
	proc = "/proc/self/fd/" + strconv.Itoa(int(tree))
	link, _ = os.Readlink(proc)
	if err := verifyLink(proc, link); !errors.Is(err, errUnresolvable) {
		t.Fatalf("verifyLink(detached tree %s -> %q) = %v, want errUnresolvable", proc, link, err)
	}
}

func unsafePtr(s string) *byte {
	p, err := unix.BytePtrFromString(s)
	if err != nil {
		panic(err)
	}
	return p
}
