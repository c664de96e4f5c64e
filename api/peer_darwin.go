package api

import "golang.org/x/sys/unix"

// peerPID reads the pid of the socket fd's peer with LOCAL_PEERPID,
// which macOS records at connect like the credentials.
func peerPID(fd int, _ *unix.Xucred) (int, error) {
	return unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
}
