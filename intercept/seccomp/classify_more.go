//go:build linux && (amd64 || arm64)

package seccomp

import (
	"bytes"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

// decodeBind: bind(fd, addr, addrlen) of an AF_UNIX socket to a path
// creates that name, like mknod; any other address changes no file. An
// abstract name (a leading NUL) is not a file either. A path that fills
// sun_path without a NUL is refused: the kernel ends it at addrlen, the
// gate would read past it.
func decodeBind(a args, t *tracee) (request, error) {
	addrlen := int(int32(a[2]))
	if addrlen <= 2 || addrlen > unix.SizeofSockaddrUnix {
		return request{}, errNoMutation
	}
	var sa [unix.SizeofSockaddrUnix]byte
	n, err := t.readAt(sa[:addrlen], a[1])
	switch {
	case err != nil:
		return request{}, err
	case n < addrlen:
		return request{}, unix.EFAULT
	case uint16(sa[0])|uint16(sa[1])<<8 != unix.AF_UNIX || sa[2] == 0:
		return request{}, errNoMutation
	case bytes.IndexByte(sa[2:addrlen], 0) < 0:
		return request{}, unix.EINVAL
	}
	return one(intercept.OpMknod, at(cwd, a[1]+2, false))
}

// decodeXattrPath covers setxattr and removexattr (following a final
// symlink) and their l* forms (not following): the path is the first
// argument.
func decodeXattrPath(follow bool) decoder {
	return func(a args, _ *tracee) (request, error) { return one(intercept.OpXattr, at(cwd, a[0], follow)) }
}

// decodeXattrFD covers fsetxattr and fremovexattr.
func decodeXattrFD(a args, _ *tracee) (request, error) { return one(intercept.OpXattr, fdName(a[0])) }

// decodeXattrat covers setxattrat and removexattrat: (dirfd, path,
// at_flags, ...).
func decodeXattrat(a args, _ *tracee) (request, error) {
	return one(intercept.OpXattr, atFlags(fdArg(a[0]), a[1], a[2]))
}

// decodeFileSetattr: file_setattr(dirfd, path, attr, size, at_flags).
func decodeFileSetattr(a args, _ *tracee) (request, error) {
	return one(intercept.OpSetFlags, atFlags(fdArg(a[0]), a[1], a[4]))
}

// decodeIoctl: the filter only notifies the commands that set a file's
// attributes (fsIoctls), on the file open at the fd.
func decodeIoctl(a args, _ *tracee) (request, error) { return one(intercept.OpSetFlags, fdName(a[0])) }

// decodeProcessPid covers process_vm_writev and pidfd_open, whose first
// argument is the target's pid.
func decodeProcessPid(a args, _ *tracee) (request, error) {
	return request{process: &processTarget{pid: int(int32(a[0])), pidfd: -1}}, nil
}

// decodeProcessPid2 covers ptrace attach requests: (request, pid, ...).
func decodeProcessPid2(a args, _ *tracee) (request, error) {
	return request{process: &processTarget{pid: int(int32(a[1])), pidfd: -1}}, nil
}

// decodePidfdGetfd: pidfd_getfd(pidfd, targetfd, flags) takes an fd of the
// process the pidfd names.
func decodePidfdGetfd(a args, _ *tracee) (request, error) {
	return request{process: &processTarget{pidfd: fdArg(a[0])}}, nil
}
