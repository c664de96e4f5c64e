//go:build !windows

package etcd

import (
	"errors"
	"syscall"
)

// refused reports whether err is a TCP connection the host refused.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
