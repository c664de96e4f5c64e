package unixsock

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// reach calls use with path, which must fit as it is: Windows has no
// /proc to name a directory by, and making a symlink needs a privilege.
// A system without AF_UNIX is said so by ErrUnsupported, not only by
// Winsock's number.
func reach(path string, use func(addr string) error) error {
	if !fits(path) {
		return tooLong(path, "this system has no short name for its directory")
	}
	err := use(path)
	if errors.Is(err, windows.WSAEAFNOSUPPORT) {
		return fmt.Errorf("%w; Windows has them from Windows 10 version 1803 on: %w", ErrUnsupported, err)
	}
	return err
}
