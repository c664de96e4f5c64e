//go:build linux

// Package disktest gives tests a small file system they can fill, for a
// real ENOSPC: it owns no behaviour of leasegate and must not import any
// of its packages.
package disktest

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Small mounts a tmpfs of size (as mount's size= option takes it, "4m")
// on dir, mode 0700, until the test ends, and returns dir. Mounting needs
// root: without it the test is skipped, saying so.
func Small(tb testing.TB, dir, size string) string {
	tb.Helper()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		tb.Skipf("mount a tmpfs (needs root): %v", err)
	}
	tb.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// Fill writes a file into dir until its file system is full, and returns
// the file's path: removing it gives the space back.
func Fill(tb testing.TB, dir string) string {
	tb.Helper()
	name := filepath.Join(dir, "filler")
	f, err := os.Create(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				tb.Fatal(err)
			}
			return name
		}
	}
}
