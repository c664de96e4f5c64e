//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// helperEnv selects a worker program built into the test binary.
const helperEnv = "SECCOMP_TEST_PROGRAM"

// programs are worker programs that no shell tool can stand in for. Each
// gets its arguments and returns an exit code.
var programs = map[string]func(args []string) int{
	"write-threads": writeThreads,
	"tmpfile-link":  tmpfileLink,
	"open-loop":     openLoop,
	"churn-loop":    churnLoop,
	"truncate-loop": truncateLoop,
	"syscall-case":  syscallCaseProgram,
}

func runHelper(name string, args []string) int {
	p, ok := programs[name]
	if !ok {
		p, ok = archPrograms[name]
	}
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown test program %q\n", name)
		return 2
	}
	return p(args)
}

// writeThreads writes each file named in args from its own OS thread, all
// at once.
func writeThreads(args []string) int {
	var wg sync.WaitGroup
	errs := make(chan error, len(args))
	for _, name := range args {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			errs <- os.WriteFile(name, []byte(name), 0o644)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// tmpfileLink creates an O_TMPFILE file in args[0], writes it, and gives
// it the name args[1], through AT_EMPTY_PATH (args[2] == "empty-path") or
// through /proc/self/fd/N with AT_SYMLINK_FOLLOW (args[2] == "proc-fd").
func tmpfileLink(args []string) int {
	fd, err := unix.Open(args[0], unix.O_TMPFILE|unix.O_WRONLY, 0o644)
	if err == nil {
		_, err = unix.Write(fd, []byte("tmp"))
	}
	if err == nil && args[2] == "empty-path" {
		err = unix.Linkat(fd, "", unix.AT_FDCWD, args[1], unix.AT_EMPTY_PATH)
	} else if err == nil {
		proc := "/proc/self/fd/" + strconv.Itoa(fd)
		err = unix.Linkat(unix.AT_FDCWD, proc, unix.AT_FDCWD, args[1], unix.AT_SYMLINK_FOLLOW)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tmpfile-link:", err)
		return 1
	}
	return 0
}

// openLoop opens args[0] with O_WRONLY|O_CREAT and closes it args[1]
// times, and prints the nanoseconds that took.
func openLoop(args []string) int {
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return 2
	}
	path := filepath.Clean(args[0])
	start := time.Now()
	for range n {
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "open-loop:", err)
			return 1
		}
		unix.Close(fd)
	}
	fmt.Println(time.Since(start).Nanoseconds())
	return 0
}

// churnLoop creates and removes the file args[0] (a path relative to the
// working directory, as git and rm use) args[1] times: two notified
// syscalls per round, an O_CREAT|O_EXCL open and an unlink. It prints the
// nanoseconds that took.
func churnLoop(args []string) int {
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return 2
	}
	start := time.Now()
	for range n {
		fd, err := unix.Open(args[0], unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
		if err == nil {
			unix.Close(fd)
			err = unix.Unlink(args[0])
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "churn-loop:", err)
			return 1
		}
	}
	fmt.Println(time.Since(start).Nanoseconds())
	return 0
}

// truncateLoop does what a shell's `echo $i > args[0]` does, args[1]
// times: it opens the file with O_WRONLY|O_CREAT|O_TRUNC, checks that the
// fd it got is open for writing, and writes the round's number through it.
// It stops at the first round that fails.
func truncateLoop(args []string) int {
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return 2
	}
	for i := range n {
		if err := truncateWrite(args[0], i); err != nil {
			fmt.Fprintf(os.Stderr, "truncate-loop: round %d: %v\n", i, err)
			return 1
		}
	}
	return 0
}

// truncateWrite is one round of truncateLoop.
func truncateWrite(path string, i int) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer unix.Close(fd)
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil || flags&unix.O_ACCMODE != unix.O_WRONLY {
		return fmt.Errorf("open returned fd %d with flags %#o (%v), not the file opened for writing", fd, flags, err)
	}
	if _, err := unix.Write(fd, []byte(strconv.Itoa(i)+"\n")); err != nil {
		return fmt.Errorf("write to fd %d: %w", fd, err)
	}
	return nil
}
