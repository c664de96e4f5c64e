//go:build !windows

package neterr

import (
	"errors"
	"syscall"
)

// Refused reports whether err is a connection refused: nothing listens
// at the address (a TCP port, a unix socket file).
func Refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
