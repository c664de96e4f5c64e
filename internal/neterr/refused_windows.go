package neterr

import (
	"errors"

	"golang.org/x/sys/windows"
)

// Refused reports whether err is a connection refused: nothing listens
// at the address (a TCP port, a unix socket file). Windows says so by
// Winsock's own number, which syscall.ECONNREFUSED (a number Go invents
// on Windows) never equals.
func Refused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }
