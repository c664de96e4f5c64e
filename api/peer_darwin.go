package api

import (
	"net"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/gate"
)

// connPeer reads c's peer credentials: the pid with LOCAL_PEERPID, the
// effective uid and first group with LOCAL_PEERCRED (macOS's SO_PEERCRED
// counterparts, both recorded by the kernel at connect).
func connPeer(c *net.UnixConn) gate.Peer {
	none := gate.Peer{UID: gate.NoID, GID: gate.NoID}
	raw, err := c.SyscallConn()
	if err != nil {
		return none
	}
	var pid int
	var cred *unix.Xucred
	var perr, cerr error
	if err := raw.Control(func(fd uintptr) {
		pid, perr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil || perr != nil || cerr != nil || cred.Ngroups < 1 {
		return none
	}
	return gate.Peer{PID: pid, UID: cred.Uid, GID: cred.Groups[0]}
}
