//go:build linux

package seccomp_test

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

// archPrograms are the worker programs only amd64 has.
var archPrograms = map[string]func([]string) int{"x32-syscall": x32Syscall}

// legacyCases are amd64's syscalls without *at, made raw: libc and Go
// prefer the *at forms, but old binaries and static ones still use these.
var legacyCases = []syscallCase{
	{name: "syscall -1", err: unix.ENOSYS, run: func(int) error {
		return rawErr(^uintptr(0))
	}},
	{name: "open", want: mut(intercept.OpOpenWrite, "f"), run: func(int) error {
		return rawFD(unix.SYS_OPEN, ptr("l"), unix.O_WRONLY)
	}},
	{name: "open rdonly", run: func(int) error {
		return rawFD(unix.SYS_OPEN, ptr("f"), unix.O_RDONLY)
	}},
	{name: "creat", want: mut(intercept.OpCreate, "c"), run: func(int) error {
		return rawFD(unix.SYS_CREAT, ptr("c"), 0o644)
	}},
	{name: "rename", want: mut(intercept.OpRename, "f", "sub/g"), run: func(int) error {
		return rawErr(unix.SYS_RENAME, ptr("f"), ptr("sub/g"))
	}},
	{name: "unlink", want: mut(intercept.OpUnlink, "l"), run: func(int) error {
		return rawErr(unix.SYS_UNLINK, ptr("l"))
	}},
	{name: "mkdir", want: mut(intercept.OpMkdir, "m"), run: func(int) error {
		return rawErr(unix.SYS_MKDIR, ptr("m"), 0o755)
	}},
	{name: "rmdir", want: mut(intercept.OpRmdir, "e"), run: func(int) error {
		return rawErr(unix.SYS_RMDIR, ptr("e"))
	}},
	{name: "link", want: mut(intercept.OpLink, "h", "l"), run: func(int) error {
		return rawErr(unix.SYS_LINK, ptr("l"), ptr("h"))
	}},
	{name: "symlink", want: mut(intercept.OpSymlink, "s", "sub"), run: func(int) error {
		return rawErr(unix.SYS_SYMLINK, ptr("sub"), ptr("s"))
	}},
	{name: "chmod", want: mut(intercept.OpChmod, "f"), run: func(int) error {
		return rawErr(unix.SYS_CHMOD, ptr("l"), 0o600)
	}},
	{name: "chown", want: mut(intercept.OpChown, "f"), run: func(int) error {
		return rawErr(unix.SYS_CHOWN, ptr("l"), uintptr(os.Getuid()), ^uintptr(0))
	}},
	{name: "lchown", want: mut(intercept.OpChown, "l"), run: func(int) error {
		return rawErr(unix.SYS_LCHOWN, ptr("l"), uintptr(os.Getuid()), ^uintptr(0))
	}},
	{name: "utime", want: mut(intercept.OpUtimes, "f"), run: func(int) error {
		return rawErr(unix.SYS_UTIME, ptr("l"), 0)
	}},
	{name: "utimes", want: mut(intercept.OpUtimes, "f"), run: func(int) error {
		return rawErr(unix.SYS_UTIMES, ptr("l"), 0)
	}},
	{name: "futimesat", want: mut(intercept.OpUtimes, "sub"), run: func(d int) error {
		return rawErr(unix.SYS_FUTIMESAT, uintptr(d), ptr("sub"), 0)
	}},
	{name: "futimesat null path", want: mut(intercept.OpUtimes, "f"), run: func(int) error {
		return withFD(unix.O_RDONLY, func(fd int) error { return rawErr(unix.SYS_FUTIMESAT, uintptr(fd), 0, 0) })
	}},
	{name: "mknod", want: mut(intercept.OpMknod, "p"), run: func(int) error {
		return rawErr(unix.SYS_MKNOD, ptr("p"), unix.S_IFIFO|0o644, 0)
	}},
}

// rawFD makes a raw open-like syscall and closes the fd it returns.
func rawFD(nr uintptr, a ...uintptr) error {
	a = append(a, 0, 0, 0)
	fd, _, errno := unix.Syscall(nr, a[0], a[1], a[2])
	if errno != 0 {
		return errno
	}
	return unix.Close(int(fd))
}

// TestX32IsKilled: an x32 ABI syscall number shares AUDIT_ARCH_X86_64 but
// not the syscall numbers, so the filter kills the process making one.
func TestX32IsKilled(t *testing.T) {
	dir := tempDir(t)
	rec := &recorder{}
	res := runProgram(t, dir, rec, "x32-syscall")
	if res.code != -1 || !strings.Contains(res.state, "bad system call") {
		t.Errorf("x32 syscall: exit %d (%s), output %q; want killed by SIGSYS", res.code, res.state, res.output)
	}
}

// x32Syscall makes x32's getpid (0x40000000|39); it must not return.
func x32Syscall([]string) int {
	unix.Syscall(0x40000000|unix.SYS_GETPID, 0, 0, 0)
	return 0
}
