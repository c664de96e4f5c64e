package etcd

import (
	"errors"

	"golang.org/x/sys/windows"
)

// refused reports whether err is a TCP connection the host refused:
// Winsock's own error number, which syscall.ECONNREFUSED (a number Go
// invents on Windows) never equals.
func refused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }
