//go:build linux && (amd64 || arm64)

package seccomp

import (
	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

// The decoders below mirror the syscalls' argument lists; "nofollow" names
// are those whose final component is the thing affected (unlink, rename,
// mkdir, lchown, the new name of a link).

const cwd = unix.AT_FDCWD

func decodeRename(a args, _ *tracee) (request, error) {
	return request{op: intercept.OpRename, names: []nameArg{at(cwd, a[0], false), at(cwd, a[1], false)}}, nil
}

// decodeRenameat covers renameat and renameat2 (RENAME_EXCHANGE and
// RENAME_NOREPLACE change nothing about which names are affected).
func decodeRenameat(a args, _ *tracee) (request, error) {
	return request{op: intercept.OpRename, names: []nameArg{at(fdArg(a[0]), a[1], false), at(fdArg(a[2]), a[3], false)}}, nil
}

func decodeUnlink(a args, _ *tracee) (request, error) {
	return one(intercept.OpUnlink, at(cwd, a[0], false))
}

func decodeUnlinkat(a args, _ *tracee) (request, error) {
	if a[2]&unix.AT_REMOVEDIR != 0 {
		return one(intercept.OpRmdir, at(fdArg(a[0]), a[1], false))
	}
	return one(intercept.OpUnlink, at(fdArg(a[0]), a[1], false))
}

func decodeMkdir(a args, _ *tracee) (request, error) {
	return one(intercept.OpMkdir, at(cwd, a[0], false))
}

func decodeMkdirat(a args, _ *tracee) (request, error) {
	return one(intercept.OpMkdir, at(fdArg(a[0]), a[1], false))
}

func decodeRmdir(a args, _ *tracee) (request, error) {
	return one(intercept.OpRmdir, at(cwd, a[0], false))
}

// decodeLink: link(2) never follows a symlink as its source on Linux.
func decodeLink(a args, _ *tracee) (request, error) {
	return request{op: intercept.OpLink, names: []nameArg{at(cwd, a[1], false), at(cwd, a[0], false)}}, nil
}

// decodeLinkat puts the new name first. The source follows a symlink only
// with AT_SYMLINK_FOLLOW and may be the fd itself (AT_EMPTY_PATH), which is
// how an O_TMPFILE file gets its name.
func decodeLinkat(a args, _ *tracee) (request, error) {
	src := at(fdArg(a[0]), a[1], a[4]&unix.AT_SYMLINK_FOLLOW != 0)
	src.emptyOK = a[4]&unix.AT_EMPTY_PATH != 0
	return request{op: intercept.OpLink, names: []nameArg{at(fdArg(a[2]), a[3], false), src}}, nil
}

func decodeSymlink(a args, _ *tracee) (request, error) {
	return request{op: intercept.OpSymlink, names: []nameArg{at(cwd, a[1], false)}, linkTarget: a[0]}, nil
}

func decodeSymlinkat(a args, _ *tracee) (request, error) {
	return request{op: intercept.OpSymlink, names: []nameArg{at(fdArg(a[1]), a[2], false)}, linkTarget: a[0]}, nil
}

// decodeChdir covers chdir and fchdir, which change no file: they are
// notified so that a remembered working directory is forgotten first (see
// lookups).
func decodeChdir(args, *tracee) (request, error) { return request{op: opChdir}, errNoMutation }

func decodeTruncate(a args, _ *tracee) (request, error) {
	return one(intercept.OpTruncate, at(cwd, a[0], true))
}

func decodeFtruncate(a args, _ *tracee) (request, error) {
	return one(intercept.OpTruncate, fdName(a[0]))
}

func decodeChmod(a args, _ *tracee) (request, error) {
	return one(intercept.OpChmod, at(cwd, a[0], true))
}

func decodeFchmod(a args, _ *tracee) (request, error) { return one(intercept.OpChmod, fdName(a[0])) }

// decodeFchmodat: the fchmodat syscall has no flags argument (glibc's
// AT_SYMLINK_NOFOLLOW goes through fchmodat2 or an O_PATH fd).
func decodeFchmodat(a args, _ *tracee) (request, error) {
	return one(intercept.OpChmod, at(fdArg(a[0]), a[1], true))
}

func decodeFchmodat2(a args, _ *tracee) (request, error) {
	return one(intercept.OpChmod, atFlags(fdArg(a[0]), a[1], a[3]))
}

func decodeChown(a args, _ *tracee) (request, error) {
	return one(intercept.OpChown, at(cwd, a[0], true))
}

func decodeFchown(a args, _ *tracee) (request, error) { return one(intercept.OpChown, fdName(a[0])) }

func decodeLchown(a args, _ *tracee) (request, error) {
	return one(intercept.OpChown, at(cwd, a[0], false))
}

func decodeFchownat(a args, _ *tracee) (request, error) {
	return one(intercept.OpChown, atFlags(fdArg(a[0]), a[1], a[4]))
}

// decodeUtimes covers utime and utimes: (path, times), following.
func decodeUtimes(a args, _ *tracee) (request, error) {
	return one(intercept.OpUtimes, at(cwd, a[0], true))
}

// decodeFutimesat: a NULL path means dirfd itself, as with utimensat.
func decodeFutimesat(a args, _ *tracee) (request, error) {
	if a[1] == 0 && fdArg(a[0]) != cwd {
		return one(intercept.OpUtimes, fdName(a[0]))
	}
	return one(intercept.OpUtimes, at(fdArg(a[0]), a[1], true))
}

// decodeUtimensat: futimens(fd) is utimensat(fd, NULL, times, 0). A NULL
// path with AT_FDCWD is left to fail with EFAULT, as in the kernel.
func decodeUtimensat(a args, _ *tracee) (request, error) {
	if a[1] == 0 && fdArg(a[0]) != cwd {
		return one(intercept.OpUtimes, fdName(a[0]))
	}
	return one(intercept.OpUtimes, atFlags(fdArg(a[0]), a[1], a[3]))
}

func decodeMknod(a args, _ *tracee) (request, error) {
	return one(intercept.OpMknod, at(cwd, a[0], false))
}

func decodeMknodat(a args, _ *tracee) (request, error) {
	return one(intercept.OpMknod, at(fdArg(a[0]), a[1], false))
}
