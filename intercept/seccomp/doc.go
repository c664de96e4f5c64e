// Package seccomp gates the file mutations of a worker process tree with
// seccomp user notification (SECCOMP_RET_USER_NOTIF), in pure Go and without
// privileges.
//
// It owns four things: the classic BPF filter that sends write-like syscalls
// to user space and keeps reads in the kernel; the re-executed helper
// (MaybeRunChild) that installs that filter on itself and then execs the
// worker; the Supervisor that receives each notification, turns it into a
// Mutation with absolute paths resolved from /proc, asks a Decider and
// answers the kernel (continue, an errno, or later); and kernel feature
// detection.
//
// It must not decide anything itself: there is no lease logic, no path
// policy (workspace, .git, ignored files) and no HTTP here. The caller's
// Decider says yes or no; this package only reports faithfully what a
// syscall is about to change and carries out the answer.
//
// What cannot be gated is refused in the kernel: io_uring (its rings
// change files where no filter looks) fails with ENOSYS, a write open by
// file handle (open_by_handle_at names no path) with EPERM.
//
// Limits the caller should know (also in DESIGN.md): a hostile worker can swap a path between the check and the use
// (SECCOMP_USER_NOTIF_FLAG_CONTINUE is not a security boundary); the
// filter sets no_new_privs, so setuid programs (sudo) gain no privileges
// inside a worker; paths are read with the ptrace access check, so an
// unprivileged supervisor cannot read a worker process that made itself
// non-dumpable, and its mutations fail with EPERM; paths are resolved in
// the supervisor's mount namespace and root, which a worker that chroots
// or unshares no longer shares.
package seccomp
