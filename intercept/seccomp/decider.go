package seccomp

import "context"

// Op names the kind of mutation a syscall is about to make.
type Op string

// The operations a Mutation can carry.
const (
	OpOpenWrite Op = "open-write" // open of an existing file for writing
	OpCreate    Op = "create"     // open with O_CREAT of a missing file
	OpTruncate  Op = "truncate"   // O_TRUNC, truncate, ftruncate
	OpUnlink    Op = "unlink"
	OpRename    Op = "rename" // Paths: old name, new name
	OpMkdir     Op = "mkdir"
	OpRmdir     Op = "rmdir"
	OpLink      Op = "link"    // Paths: new name, then the existing file if it has a name
	OpSymlink   Op = "symlink" // Paths: the link, then its target
	OpChmod     Op = "chmod"
	OpChown     Op = "chown"
	OpUtimes    Op = "utimes"
	OpMknod     Op = "mknod"
)

// Mutation is one syscall, held in the kernel, that is about to change the
// file tree.
type Mutation struct {
	// PID is the process (thread group id) that made the syscall.
	PID int
	// TID is the thread that made it; equal to PID for single-threaded
	// processes.
	TID int
	// Op is what the syscall does.
	Op Op
	// Syscall is the syscall's name, e.g. "openat" or "renameat2".
	Syscall string
	// Paths are absolute, cleaned host paths of the files affected, with
	// symlinks resolved the way the kernel will resolve them: a followed
	// final symlink yields its target, an unfollowed one (unlink, rename,
	// lchown) the name itself. Files without a name (O_TMPFILE, unlinked
	// files reached through an fd) are left out.
	Paths []string
}

// Decider answers whether a Mutation may proceed. It is called from its own
// goroutine per syscall and may block for as long as it likes; ctx is
// cancelled when the syscall can no longer be answered (the thread got a
// fatal signal) or when the Supervisor stops.
//
// Returning nil lets the syscall run. Returning a syscall.Errno fails the
// syscall with that errno (EBUSY, EACCES, ...). Any other error fails it
// with EACCES. Decide must return soon after ctx is done: Close waits for
// it.
type Decider interface {
	Decide(ctx context.Context, m Mutation) error
}

// DeciderFunc adapts a function to the Decider interface.
type DeciderFunc func(ctx context.Context, m Mutation) error

// Decide calls f(ctx, m).
func (f DeciderFunc) Decide(ctx context.Context, m Mutation) error { return f(ctx, m) }

// AllowAll is a Decider that lets every mutation proceed.
var AllowAll Decider = DeciderFunc(func(context.Context, Mutation) error { return nil })
