//go:build linux && (amd64 || arm64)

package seccomp

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

func decodeOpen(a args, _ *tracee) (request, error) {
	return openRequest(unix.AT_FDCWD, a[0], a[1], a[2])
}

func decodeOpenat(a args, _ *tracee) (request, error) {
	return openRequest(fdArg(a[0]), a[1], a[2], a[3])
}

// decodeCreat: creat(path, mode) is open(path, O_CREAT|O_WRONLY|O_TRUNC).
func decodeCreat(a args, _ *tracee) (request, error) {
	return openRequest(unix.AT_FDCWD, a[0], unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC, a[1])
}

// decodeOpenat2 reads struct open_how from the tracee: BPF cannot follow
// the pointer, so every openat2 is notified and sorted out here. The
// struct is read once: the open the supervisor makes (emulate.go) uses
// these values, so changing them afterwards changes nothing. A read-only
// openat2 is resolved and emulated too, for that reason.
func decodeOpenat2(a args, t *tracee) (request, error) {
	flags, err := t.readUint64(a[2])
	if err != nil {
		return request{}, err
	}
	mode, err := t.readUint64(a[2] + 8)
	if err != nil {
		return request{}, err
	}
	resolve, err := t.readUint64(a[2] + 16)
	if err != nil {
		return request{}, err
	}
	req, err := openRequest(fdArg(a[0]), a[1], flags, mode)
	if errors.Is(err, errNoMutation) && flags&tmpfileFlag == 0 {
		req = request{op: intercept.OpOpenWrite, names: []nameArg{at(fdArg(a[0]), a[1], flags&unix.O_NOFOLLOW == 0)},
			open: &openIntent{readOnly: true, readsOnly: true, flags: flags, mode: uint32(mode)}}
		err = nil
	}
	if err == nil && resolve&unix.RESOLVE_IN_ROOT != 0 {
		req.names[0].inRoot = true
	}
	return req, err
}

// openRequest classifies an open by its flags. The filter already passed
// read-only opens for open and openat; openat2 gets here with any flags.
func openRequest(dirfd int, path, flags, mode uint64) (request, error) {
	const tmpfile = unix.O_TMPFILE &^ unix.O_DIRECTORY
	accmode := flags & unix.O_ACCMODE
	switch {
	case flags&tmpfile != 0:
		return request{}, errNoMutation // unnamed; a later linkat names it
	case accmode == unix.O_RDONLY && flags&(unix.O_CREAT|unix.O_TRUNC) == 0:
		return request{}, errNoMutation
	}
	// O_NOFOLLOW refuses a final symlink; O_CREAT|O_EXCL creates the name
	// itself (EEXIST on a symlink). Otherwise the kernel follows it, even a
	// dangling one, which O_CREAT then creates.
	exclusive := flags&(unix.O_CREAT|unix.O_EXCL) == unix.O_CREAT|unix.O_EXCL
	follow := flags&unix.O_NOFOLLOW == 0 && !exclusive
	req := request{op: intercept.OpOpenWrite, names: []nameArg{at(dirfd, path, follow)}}
	switch {
	case exclusive:
		// It creates the file or fails with EEXIST, whatever is there:
		// no need to look.
		req.op = intercept.OpCreate
		req.call = &openIntent{create: true, flags: flags, mode: uint32(mode)}
		return req, nil
	case flags&unix.O_TRUNC != 0:
		req.op = intercept.OpTruncate
	}
	req.open = &openIntent{create: flags&unix.O_CREAT != 0, readOnly: accmode == unix.O_RDONLY, flags: flags, mode: uint32(mode)}
	return req, nil
}

// openOp settles an open's Op once its file is known: a missing file is
// created; O_TRUNC truncates only regular files (not /dev/null or a fifo);
// an existing file opened O_RDONLY is not changed at all.
func openOp(req request, f fileKind) (intercept.Op, error) {
	switch {
	case req.open == nil:
		return req.op, nil
	case req.open.readsOnly:
		return "", errNoMutation // a read-only openat2, resolved to be emulated
	case !f.exists && req.open.create:
		return intercept.OpCreate, nil
	case !f.exists:
		return req.op, nil // the open will fail with ENOENT
	case req.op == intercept.OpTruncate && f.regular:
		return intercept.OpTruncate, nil
	case req.open.readOnly:
		return "", errNoMutation
	}
	return intercept.OpOpenWrite, nil
}
