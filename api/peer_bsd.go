//go:build darwin || freebsd

package api

import (
	"net"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/gate"
)

// connPeer reads c's peer credentials: the effective uid and first group
// with LOCAL_PEERCRED (the BSDs' SO_PEERCRED counterpart, recorded by the
// kernel at connect), and the pid as the platform gives it (peerPID).
func connPeer(c *net.UnixConn) gate.Peer {
	none := gate.Peer{UID: gate.NoID, GID: gate.NoID}
	raw, err := c.SyscallConn()
	if err != nil {
		return none
	}
	var pid int
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		if cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED); cerr == nil {
			pid, cerr = peerPID(int(fd), cred)
		}
	}); err != nil || cerr != nil || cred.Ngroups < 1 {
		return none
	}
	return gate.Peer{PID: pid, UID: cred.Uid, GID: cred.Groups[0]}
}
