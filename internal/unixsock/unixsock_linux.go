package unixsock

import (
	"fmt"

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
