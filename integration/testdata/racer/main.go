// Command racer changes what a syscall names between the gate's check and
// the kernel's use, as a hostile worker would, and counts how often the
// kernel acted on the changed value.
//
//	racer flags TARGET N   openat2 of TARGET while another thread flips
//	                       open_how.flags between O_RDONLY and O_WRONLY;
//	                       counts write fds
//	racer dirswap DIR LINK FILE INODE N
//	                       open(DIR/FILE, O_WRONLY) while another thread
//	                       exchanges DIR (a directory) and LINK (a
//	                       symlink); counts fds on inode INODE
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	var hits, opened int
	switch os.Args[1] {
	case "flags":
		hits, opened = flags(os.Args[2], atoi(os.Args[3]))
	case "dirswap":
		hits, opened = dirswap(os.Args[2], os.Args[3], os.Args[4], uint64(atoi(os.Args[5])), atoi(os.Args[6]))
	}
	fmt.Printf("hits=%d opened=%d\n", hits, opened)
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// flags races openat2's flags.
func flags(target string, n int) (hits, opened int) {
	how := &unix.OpenHow{Flags: unix.O_RDONLY}
	word := (*uint64)(unsafe.Pointer(&how.Flags))
	path, _ := unix.BytePtrFromString(target)
	var stop atomic.Bool
	go func() {
		runtime.LockOSThread()
		for !stop.Load() {
			atomic.StoreUint64(word, unix.O_WRONLY)
			atomic.StoreUint64(word, unix.O_RDONLY)
		}
	}()
	for range n {
		cwd := unix.AT_FDCWD
		fd, _, errno := unix.Syscall6(unix.SYS_OPENAT2, uintptr(cwd), uintptr(unsafe.Pointer(path)),
			uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how), 0, 0)
		if errno != 0 {
			continue
		}
		opened++
		if fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0); err == nil && fl&unix.O_ACCMODE != unix.O_RDONLY {
			hits++
		}
		unix.Close(int(fd))
	}
	stop.Store(true)
	return hits, opened
}

// dirswap races a directory against a symlink.
func dirswap(dir, link, file string, inode uint64, n int) (hits, opened int) {
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		for !stop.Load() {
			_ = unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
		}
	}()
	for range n {
		fd, err := unix.Open(dir+"/"+file, unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		opened++
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Ino == inode {
			hits++
		}
		unix.Close(fd)
	}
	stop.Store(true)
	<-done
	return hits, opened
}
