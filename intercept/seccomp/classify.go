//go:build linux && (amd64 || arm64)

package seccomp

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

// always marks a syscallEntry the filter notifies unconditionally.
const always = -1

// errNoMutation means a notified syscall changes no named file (a
// read-only openat2, an O_TMPFILE open): it is let through without asking
// the Decider.
var errNoMutation = errors.New("no named mutation")

// syscallEntry is one gated syscall of the native architecture.
type syscallEntry struct {
	nr   uint32
	name string
	// flagsArg is the index of the open flags argument the filter checks
	// for write flags before notifying, or always.
	flagsArg int
	decode   decoder
}

// args are a syscall's six raw register arguments.
type args = [6]uint64

// decoder turns a syscall's arguments into a request. Only openat2 reads
// the tracee's memory here (its flags live in a struct).
type decoder func(a args, t *tracee) (request, error)

// request is what a syscall asks for, before any path is read or resolved.
type request struct {
	op    intercept.Op
	names []nameArg
	// linkTarget is the address of a symlink's contents (symlink,
	// symlinkat); 0 otherwise.
	linkTarget uint64
	// open is set for opens, whose Op depends on the file they find.
	open *openIntent
	// call is set for an O_CREAT|O_EXCL open, whose Op needs no look at
	// the file: what emulating it needs.
	call *openIntent
	// process is set for syscalls that act on another process (ptrace
	// attach, process_vm_writev, pidfd_open, pidfd_getfd): no file
	// changes, the target must be of the worker's tree (process.go).
	process *processTarget
}

// openIntent is what an open's flags say about the file.
type openIntent struct {
	create   bool // O_CREAT: a missing file is created
	readOnly bool // O_RDONLY access mode: an existing file is not changed
	// readsOnly: a read-only openat2, resolved only so it can be emulated.
	readsOnly bool
	flags     uint64 // the open flags, as read once
	mode      uint32 // the create mode
}

// nameArg is one file a syscall names, as the kernel will look it up.
type nameArg struct {
	dirfd int    // AT_FDCWD or a directory fd of the tracee
	addr  uint64 // address of the path string
	// fdOnly: there is no path; dirfd itself is the file (ftruncate,
	// utimensat with a NULL path).
	fdOnly bool
	// emptyOK: AT_EMPTY_PATH, an empty path names dirfd itself.
	emptyOK bool
	// follow: a final symlink is followed.
	follow bool
	// inRoot: openat2 RESOLVE_IN_ROOT, dirfd is the lookup's root.
	inRoot bool
}

// fdArg converts a register holding an fd (or AT_FDCWD) to the int the
// kernel reads from it: the low 32 bits, sign-extended.
func fdArg(r uint64) int { return int(int32(r)) }

// at names path at dirfd, following a final symlink or not.
func at(dirfd int, path uint64, follow bool) nameArg {
	return nameArg{dirfd: dirfd, addr: path, follow: follow}
}

// atFlags names path at dirfd as the *at syscalls with an AT_* flags
// argument do.
func atFlags(dirfd int, path, flags uint64) nameArg {
	n := at(dirfd, path, flags&unix.AT_SYMLINK_NOFOLLOW == 0)
	n.emptyOK = flags&unix.AT_EMPTY_PATH != 0
	return n
}

// fdName names the file open at fd.
func fdName(r uint64) nameArg { return nameArg{dirfd: fdArg(r), fdOnly: true, follow: true} }

// one builds the request of a syscall on a single name.
func one(op intercept.Op, n nameArg) (request, error) {
	return request{op: op, names: []nameArg{n}}, nil
}
