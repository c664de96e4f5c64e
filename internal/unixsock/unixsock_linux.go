package unixsock

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// reach calls use with an address for path that the kernel takes: path
// itself when it fits, else /proc/self/fd/N/NAME of the socket's
// directory, opened for the call.
func reach(path string, use func(addr string) error) error {
	if fits(path) {
		return use(path)
	}
	dir, name := split(path)
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket %s: open its directory: %w", path, err)
	}
	defer unix.Close(fd)
	short := fmt.Sprintf("/proc/self/fd/%d/%s", fd, name)
	if !fits(short) {
		return tooLong(path, fmt.Sprintf("so is its name %s", name))
	}
	var st unix.Stat_t
	if err := unix.Stat(fmt.Sprintf("/proc/self/fd/%d", fd), &st); err != nil {
		return tooLong(path, fmt.Sprintf("its directory cannot be named through /proc (%v)", err))
	}
	return use(short)
}

// PeerPID returns the pid of the process at the other end of a unix
// connection, as the kernel recorded it (SO_PEERCRED) in this process's
// pid namespace.
func PeerPID(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, fmt.Errorf("peer pid: %T is not a unix connection", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) { cred, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return 0, err
	}
	if serr != nil {
		return 0, fmt.Errorf("peer pid: SO_PEERCRED: %w", serr)
	}
	return int(cred.Pid), nil
}
