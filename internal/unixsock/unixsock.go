// Package unixsock binds and dials unix sockets at any path length.
//
// The kernel takes a socket's path in a fixed sun_path field: 108 bytes
// with its terminating NUL on Linux, 104 on macOS. A workspace deep in a
// home directory, a monorepo or a linked worktree puts its socket past
// that. On Linux, Listen and Dial then reach the socket through
// /proc/self/fd/N/NAME, N being a descriptor of the socket's directory
// opened for the call: the kernel resolves the directory, and the socket
// keeps its place, its mode and its owner. On macOS and the BSDs, which
// have no /proc, they go through /tmp/leasegate-UID/HASH/NAME, HASH a
// symlink to the socket's directory in a directory only this user may
// write. On Windows such a path is refused with ErrPathTooLong.
package unixsock

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrPathTooLong means a socket path could not be bound or dialed because
// of its length, even through a short name of its directory.
var ErrPathTooLong = errors.New("socket path too long")

// ErrUnsupported means this system has no unix sockets: Windows before
// Windows 10 version 1803, and Wine.
var ErrUnsupported = errors.New("this system has no unix sockets (AF_UNIX)")

// Listen binds a unix socket at path and listens on it. Closing the
// listener removes the socket file, unless another socket has taken its
// place since (a later coordinator's).
func Listen(path string) (net.Listener, error) {
	var ln net.Listener
	err := reach(path, func(addr string) error {
		var err error
		ln, err = net.Listen("unix", addr)
		return err
	})
	if err != nil {
		return nil, named(path, err)
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // addr may name a descriptor that is closed by then
	fi, err := os.Lstat(path)
	if err != nil {
		_ = ul.Close()
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	return &listener{UnixListener: ul, path: path, bound: fi}, nil
}

// Dial connects to the unix socket at path.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	var c net.Conn
	err := reach(path, func(addr string) error {
		var d net.Dialer
		var err error
		c, err = d.DialContext(ctx, "unix", addr)
		return err
	})
	if err != nil {
		return nil, named(path, err)
	}
	return c, nil
}

// named makes sure an error names the socket's own path, not only the
// short name it was reached by.
func named(path string, err error) error {
	if strings.Contains(err.Error(), path) {
		return err
	}
	return fmt.Errorf("socket %s: %w", path, err)
}

// listener removes its own socket file when closed.
type listener struct {
	*net.UnixListener
	path  string
	bound os.FileInfo
}

func (l *listener) Close() error {
	err := l.UnixListener.Close()
	if fi, serr := os.Lstat(l.path); serr == nil && os.SameFile(fi, l.bound) {
		_ = os.Remove(l.path)
	}
	return err
}

// Addr reports the socket's own path, not the short name it was bound by.
func (l *listener) Addr() net.Addr { return &net.UnixAddr{Name: l.path, Net: "unix"} }

// maxPath is the longest path sun_path holds, without its NUL.
func maxPath() int { return len(syscall.RawSockaddrUnix{}.Path) - 1 }

// tooLong describes a path that no name of its directory brings within
// the limit.
func tooLong(path, why string) error {
	return fmt.Errorf("%w: %s is %d bytes, over the %d the kernel takes, and %s", ErrPathTooLong, path, len(path), maxPath(), why)
}

// fits reports whether path can be used as it is.
func fits(path string) bool { return len(path) <= maxPath() }

// split returns a socket path's directory and name.
func split(path string) (dir, name string) { return filepath.Dir(path), filepath.Base(path) }
