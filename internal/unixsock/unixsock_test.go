package unixsock_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/internal/unixsock"
)

// deepDir makes a directory whose path is at least n bytes long.
func deepDir(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for len(dir) < n {
		dir = filepath.Join(dir, strings.Repeat("d", 40))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestListenAndDialAnyLength(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("long socket paths are reached through /proc on linux and a symlink on other unix systems, not on windows")
	}
	for _, n := range []int{10, 200, 1000} {
		path := filepath.Join(deepDir(t, n), "coord.sock")
		ln, err := unixsock.Listen(path)
		if err != nil {
			t.Fatalf("listen at %d bytes: %v", len(path), err)
		}
		if got := ln.Addr().String(); got != path {
			t.Errorf("Addr() = %q, want %q", got, path)
		}
		go func() {
			c, err := ln.Accept()
			if err == nil {
				_, _ = c.Write([]byte("hi"))
				_ = c.Close()
			}
		}()
		c, err := unixsock.Dial(context.Background(), path)
		if err != nil {
			t.Fatalf("dial at %d bytes: %v", len(path), err)
		}
		b, _ := io.ReadAll(c)
		_ = c.Close()
		if string(b) != "hi" {
			t.Errorf("read %q over the socket, want hi", b)
		}
		if _, err := os.Lstat(path); err != nil {
			t.Fatalf("socket file not at its own path: %v", err)
		}
		_ = ln.Close()
		if _, err := os.Lstat(path); !os.IsNotExist(err) {
			t.Errorf("socket file left after Close: %v", err)
		}
	}
}

func TestCloseKeepsAReplacedSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "coord.sock")
	old, err := unixsock.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	cur, err := unixsock.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	_ = old.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("closing the old listener removed the new socket: %v", err)
	}
}

func TestNameTooLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), strings.Repeat("s", 120)+".sock")
	_, err := unixsock.Listen(path)
	if !errors.Is(err, unixsock.ErrPathTooLong) {
		t.Fatalf("Listen(%d-byte name) = %v, want ErrPathTooLong", len(filepath.Base(path)), err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the path", err)
	}
	if _, err := unixsock.Dial(context.Background(), path); !errors.Is(err, unixsock.ErrPathTooLong) {
		t.Fatalf("Dial = %v, want ErrPathTooLong", err)
	}
}
