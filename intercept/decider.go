package intercept

import (
	"context"
	"errors"
	"fmt"
	"syscall"
)

// Op names the kind of mutation a syscall or a FUSE request is about to
// make.
type Op string

// The operations a Mutation can carry.
const (
	OpOpenWrite Op = "open-write" // open of an existing file for writing
	OpCreate    Op = "create"     // open with O_CREAT of a missing file, or with O_CREAT|O_EXCL
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
	OpMknod     Op = "mknod"     // mknod, and bind of a unix socket to a path
	OpXattr     Op = "xattr"     // setxattr and removexattr families
	OpSetFlags  Op = "set-flags" // file attributes: chattr's ioctls, file_setattr
)

// Mutation is one operation, held by an adapter (a syscall in the kernel,
// a request in a FUSE server), that is about to change the file tree.
type Mutation struct {
	// PID is the process (thread group id) that made the syscall.
	PID int
	// TID is the thread that made it; equal to PID for single-threaded
	// processes.
	TID int
	// Op is what the syscall does.
	Op Op
	// Syscall is the syscall's name, e.g. "openat" or "renameat2"; for a
	// FUSE request, the request's name prefixed with "fuse-", e.g.
	// "fuse-create".
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
// fatal signal), when a signal would interrupt it (the cause is then an
// *InterruptedError, see InterruptedBy, and a refusal is answered with
// EINTR) or when the Supervisor stops. A Decider that can answer
// most mutations at once should also be an InstantDecider: handing a
// syscall to a goroutine costs more than everything else the gate does
// for it.
//
// Returning nil lets the syscall run. Returning a syscall.Errno fails the
// syscall with that errno (EBUSY, EACCES, ...). Any other error fails it
// with EACCES. Decide must return soon after ctx is done: Close waits for
// it.
type Decider interface {
	Decide(ctx context.Context, m Mutation) error
}

// InstantDecider is a Decider that can answer some mutations at once. The
// Supervisor asks DecideNow first, on the goroutine that receives the
// notifications, and calls Decide on a goroutine of its own only when
// DecideNow did not answer.
//
// DecideNow must not wait: no I/O that can block, no lock held for long,
// no call to another process. It must change nothing either: it is asked
// before the notification is checked to be still valid, so the mutation
// may have been read from a thread that is gone, or from whatever thread
// has its id now (the answer then reaches no one: the kernel refuses an
// answer to a notification that is no longer valid). While it runs, no other notification of the
// worker is received (the Supervisor starts another receiver if one
// notification takes more than Config.StallAfter, but that is a safety
// net, not a budget).
type InstantDecider interface {
	Decider
	// DecideNow reports whether it answered m; if it did, err is the
	// answer, with the meaning it has when Decide returns it.
	DecideNow(m Mutation) (answered bool, err error)
}

// DeciderFunc adapts a function to the Decider interface.
type DeciderFunc func(ctx context.Context, m Mutation) error

// Decide calls f(ctx, m).
func (f DeciderFunc) Decide(ctx context.Context, m Mutation) error { return f(ctx, m) }

// AllowAll is a Decider that lets every mutation proceed, at once.
var AllowAll Decider = allowAll{}

type allowAll struct{}

var _ InstantDecider = allowAll{}

func (allowAll) Decide(context.Context, Mutation) error { return nil }

func (allowAll) DecideNow(Mutation) (bool, error) { return true, nil }

// InterruptedError is the cause of a Decider's cancelled context when a
// signal that would interrupt the held syscall natively is pending for its
// thread: one the program catches, or whose default action ends it, other
// than the signals that are ignored, stop or continue by default.
type InterruptedError struct {
	Signal syscall.Signal
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted by signal %d (%s)", int(e.Signal), e.Signal)
}

// InterruptedBy reports the signal that interrupted a Decider's context.
func InterruptedBy(ctx context.Context) (syscall.Signal, bool) {
	var ie *InterruptedError
	if errors.As(context.Cause(ctx), &ie) {
		return ie.Signal, true
	}
	return 0, false
}
