//go:build !linux

package unixsock

import (
	"errors"
	"net"
)

// PeerPID is not available here: there is no SO_PEERCRED.
func PeerPID(c net.Conn) (int, error) { return 0, errors.New("peer pid: not available on this system") }
