package api

import (
	"net"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/leasegate/leasegate/gate"
)

// sioAFUnixGetPeerPID is SIO_AF_UNIX_GETPEERPID (_WSAIOR(IOC_VENDOR,
// 256)): the pid of an AF_UNIX socket's peer, Windows 10 1803 and later.
const sioAFUnixGetPeerPID = 0x58000100

// connPeer reads the pid of c's peer. Windows has no uid: the peer's UID
// and GID are NoID, which is also what os.Geteuid gives there, so the
// coordinator's same-user check holds for every local process.
func connPeer(c *net.UnixConn) gate.Peer {
	none := gate.Peer{UID: gate.NoID, GID: gate.NoID}
	raw, err := c.SyscallConn()
	if err != nil {
		return none
	}
	var pid, n uint32
	var ierr error
	if err := raw.Control(func(fd uintptr) {
		ierr = windows.WSAIoctl(windows.Handle(fd), sioAFUnixGetPeerPID, nil, 0,
			(*byte)(unsafe.Pointer(&pid)), uint32(unsafe.Sizeof(pid)), &n, nil, 0)
	}); err != nil || ierr != nil {
		return none
	}
	return gate.Peer{PID: int(pid), UID: gate.NoID, GID: gate.NoID}
}
