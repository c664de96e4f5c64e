package sidecar

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// writableInherited lists the descriptors of this process that a worker
// started now would inherit open for writing on a named file: the given
// stdio files, and every other descriptor not marked close-on-exec (the
// shell's `7>>f.txt`; leasegate's own are all close-on-exec). Descriptors
// 0 to 2 reach the worker only when passed as its stdio. Pipes, sockets,
// O_PATH descriptors and files without a name are left out: writing
// through them changes no path. The list is in descriptor order.
func writableInherited(stdio ...any) ([]inherited, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, fmt.Errorf("list the descriptors a worker inherits: %w", err)
	}
	passed := map[int]bool{}
	for _, s := range stdio {
		if f, ok := s.(*os.File); ok && f != nil {
			passed[int(f.Fd())] = true
		}
	}
	var out []inherited
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || !passed[fd] && (fd <= 2 || closeOnExec(fd)) || !openForWriting(fd) {
			continue
		}
		path, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || !strings.HasPrefix(path, "/") || strings.HasSuffix(path, deletedSuffix) {
			continue
		}
		out = append(out, inherited{fd: fd, path: path})
	}
	slices.SortFunc(out, func(a, b inherited) int { return a.fd - b.fd }) // ReadDir sorts "10" before "7"
	return out, nil
}

// deletedSuffix is what the kernel appends to the /proc link of a file
// that no longer has a name.
const deletedSuffix = " (deleted)"

// closeOnExec reports whether fd is marked close-on-exec (or is already
// closed, like the directory ReadDir read).
func closeOnExec(fd int) bool {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err != nil || flags&unix.FD_CLOEXEC != 0
}

// openForWriting reports whether fd's open file allows writing.
func openForWriting(fd int) bool {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_PATH != 0 {
		return false
	}
	acc := flags & unix.O_ACCMODE
	return acc == unix.O_WRONLY || acc == unix.O_RDWR
}
