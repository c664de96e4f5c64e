//go:build !windows

package unixsock

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deepSocket returns a socket path of at least n bytes under a new
// temporary directory.
func deepSocket(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for len(dir) < n {
		dir = filepath.Join(dir, strings.Repeat("d", 40))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "coord.sock")
}

// TestReachByLink: where there is no /proc (macOS, the BSDs) a socket
// past the kernel's limit is bound and dialed through a symlink to its
// directory, and the socket file lies at its own path.
func TestReachByLink(t *testing.T) {
	root := filepath.Join(t.TempDir(), "links")
	path := deepSocket(t, 300)
	var ln net.Listener
	err := reachByLink(root, path, func(addr string) (err error) { ln, err = net.Listen("unix", addr); return err })
	if err != nil {
		t.Fatalf("listen at %d bytes through a link: %v", len(path), err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			_, _ = c.Write([]byte("hi"))
			_ = c.Close()
		}
	}()
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket not at its own path %s: %v %v", path, fi, err)
	}
	var b []byte
	err = reachByLink(root, path, func(addr string) error {
		c, err := net.Dial("unix", addr)
		if err == nil {
			b, err = io.ReadAll(c)
			c.Close()
		}
		return err
	})
	if err != nil || string(b) != "hi" {
		t.Fatalf("dial through the link = %q, %v; want hi", b, err)
	}
}

// TestReachByLinkRefusesSharedRoot: a link directory others may write is
// refused, with the reason: they could point the link at their socket.
func TestReachByLinkRefusesSharedRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "links")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o777); err != nil {
		t.Fatal(err)
	}
	path := deepSocket(t, 300)
	err := reachByLink(root, path, func(string) error { return nil })
	if !errors.Is(err, ErrPathTooLong) || !strings.Contains(err.Error(), "only it may write") {
		t.Fatalf("reachByLink with a world-writable root = %v, want ErrPathTooLong naming why", err)
	}
}
