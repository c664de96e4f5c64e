package unixsock

import (
	"errors"
	"net"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// TestReachSaysNoUnixSockets: a Windows without AF_UNIX (before Windows
// 10 version 1803, or Wine) answers socket() with WSAEAFNOSUPPORT, which
// reach turns into ErrUnsupported, keeping the path and the cause.
func TestReachSaysNoUnixSockets(t *testing.T) {
	const path = `C:\w\.git\leasegate\coord.sock`
	cause := &net.OpError{Op: "listen", Net: "unix", Addr: &net.UnixAddr{Name: path, Net: "unix"}, Err: os.NewSyscallError("socket", windows.WSAEAFNOSUPPORT)}
	err := reach(path, func(string) error { return cause })
	if !errors.Is(err, ErrUnsupported) || !errors.Is(err, windows.WSAEAFNOSUPPORT) || !strings.Contains(err.Error(), path) {
		t.Fatalf("reach on a system without AF_UNIX = %v, want ErrUnsupported wrapping the cause, naming %s", err, path)
	}
}
