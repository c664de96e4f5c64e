//go:build !linux

package unixsock

import (
	"errors"
	"net"
)

// reach calls use with path, which must fit as it is: there is no short
// name of a directory to bind or dial through.
func reach(path string, use func(addr string) error) error {
	if !fits(path) {
		return tooLong(path, "this system has no short name for its directory")
	}
	return use(path)
}

// PeerPID is not available here: there is no SO_PEERCRED.
func PeerPID(c net.Conn) (int, error) { return 0, errors.New("peer pid: not available on this system") }
