package api

import (
	"net"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/gate"
)

// connPeer reads c's peer credentials (SO_PEERCRED). The kernel gives the
// pid as this process's pid namespace sees it, 0 when not visible.
func connPeer(c *net.UnixConn) gate.Peer {
	raw, err := c.SyscallConn()
	if err != nil {
		return gate.Peer{UID: gate.NoID, GID: gate.NoID}
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return gate.Peer{UID: gate.NoID, GID: gate.NoID}
	}
	return gate.Peer{PID: int(cred.Pid), UID: cred.Uid, GID: cred.Gid}
}
