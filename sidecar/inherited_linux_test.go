package sidecar

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestWritableInherited: only descriptors a worker inherits (not
// close-on-exec, or passed as its stdio) and open for writing on a named
// file are listed.
func TestWritableInherited(t *testing.T) {
	dir := t.TempDir()
	open := func(name string, flags int) int {
		t.Helper()
		fd, err := syscall.Open(filepath.Join(dir, name), flags|syscall.O_CREAT, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(fd) })
		return fd
	}
	appended := open("append.txt", syscall.O_WRONLY|syscall.O_APPEND)
	rw := open("rw.txt", syscall.O_RDWR)
	open("read.txt", syscall.O_RDONLY)
	open("cloexec.txt", syscall.O_WRONLY|syscall.O_CLOEXEC)
	gone := open("gone.txt", syscall.O_WRONLY)
	os.Remove(filepath.Join(dir, "gone.txt"))
	stdout, err := os.Create(filepath.Join(dir, "stdout.txt")) // close-on-exec, but passed as stdout
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	got, err := writableInherited(nil, stdout, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []inherited{{appended, dir + "/append.txt"}, {rw, dir + "/rw.txt"}, {int(stdout.Fd()), dir + "/stdout.txt"}}
	slices.SortFunc(want, func(a, b inherited) int { return a.fd - b.fd })
	var mine []inherited // the test binary may have inherited others
	for _, d := range got {
		if filepath.Dir(d.path) == dir {
			mine = append(mine, d)
		}
	}
	if !slices.Equal(mine, want) {
		t.Fatalf("writableInherited() = %v, want %v (not %d, deleted)", mine, want, gone)
	}
}
