//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

// syscallCase is one syscall made directly (no libc wrapper choosing for
// us), in a work dir holding f ("data"), l -> f, sub/, ls -> sub and e/
// (empty).
type syscallCase struct {
	name string
	// run makes the syscall; dirfd is an O_PATH fd of the work dir, which
	// is also the cwd.
	run func(dirfd int) error
	// err is the errno the syscall must fail with (0: must succeed).
	err unix.Errno
	// anyErr accepts any result: the kernel may refuse after the gate
	// allowed.
	anyErr bool
	// want is the mutation it must report; nil: none at all.
	want *want
}

func mut(op intercept.Op, paths ...string) *want { return &want{op, paths} }

// portableCases exist on amd64 and arm64; legacyCases (amd64) add the old
// syscalls without *at.
var portableCases = []syscallCase{
	{name: "openat2 write", want: mut(intercept.OpCreate, "n"), run: func(d int) error {
		return closeFD(unix.Openat2(d, "n", &unix.OpenHow{Flags: unix.O_WRONLY | unix.O_CREAT, Mode: 0o644}))
	}},
	{name: "openat2 read", run: func(d int) error {
		return closeFD(unix.Openat2(d, "f", &unix.OpenHow{Flags: unix.O_RDONLY}))
	}},
	{name: "openat2 in root", want: mut(intercept.OpCreate, "sub/n"), run: func(d int) error {
		sub, err := unix.Openat(d, "sub", unix.O_PATH|unix.O_DIRECTORY, 0)
		if err != nil {
			return err
		}
		how := &unix.OpenHow{Flags: unix.O_WRONLY | unix.O_CREAT, Mode: 0o644, Resolve: unix.RESOLVE_IN_ROOT}
		return closeFD(unix.Openat2(sub, "/../n", how))
	}},
	{name: "openat tmpfile", run: func(d int) error {
		fd, err := unix.Openat(d, ".", unix.O_TMPFILE|unix.O_RDWR, 0o644)
		if err == nil {
			err = unix.Ftruncate(fd, 10)
		}
		return closeFD(fd, err)
	}},
	{name: "openat dirfd dot-dot", want: mut(intercept.OpCreate, "x"), run: func(d int) error {
		sub, err := unix.Openat(d, "sub", unix.O_PATH|unix.O_DIRECTORY, 0)
		if err != nil {
			return err
		}
		return closeFD(unix.Openat(sub, "../x", unix.O_WRONLY|unix.O_CREAT, 0o644))
	}},
	{name: "openat nofollow", err: unix.ELOOP, want: mut(intercept.OpOpenWrite, "l"), run: func(d int) error {
		return closeFD(unix.Openat(d, "l", unix.O_WRONLY|unix.O_NOFOLLOW, 0))
	}},
	{name: "openat excl", want: mut(intercept.OpCreate, "sub/n"), run: func(d int) error {
		return closeFD(unix.Openat(d, "sub/n", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o644))
	}},
	{name: "openat excl existing", err: unix.EEXIST, want: mut(intercept.OpCreate, "f"), run: func(d int) error {
		return closeFD(unix.Openat(d, "f", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o644))
	}},
	{name: "openat absolute", want: mut(intercept.OpCreate, "sub/n"), run: func(d int) error {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		return closeFD(unix.Open(wd+"/sub/n", unix.O_WRONLY|unix.O_CREAT, 0o644))
	}},
	{name: "openat through dir symlink", want: mut(intercept.OpCreate, "sub/n"), run: func(d int) error {
		return closeFD(unix.Openat(d, "ls/n", unix.O_WRONLY|unix.O_CREAT, 0o644))
	}},
	{name: "openat missing dir", err: unix.ENOENT, want: mut(intercept.OpCreate, "no/such/n"), run: func(d int) error {
		return closeFD(unix.Openat(d, "no/such/n", unix.O_WRONLY|unix.O_CREAT, 0o644))
	}},
	{name: "openat rdonly creat existing", run: func(d int) error {
		return closeFD(unix.Openat(d, "f", unix.O_RDONLY|unix.O_CREAT, 0))
	}},
	{name: "proc self fd", want: mut(intercept.OpOpenWrite, "f"), run: func(d int) error {
		return reopen("/proc/self/fd/")
	}},
	{name: "dev fd", want: mut(intercept.OpOpenWrite, "f"), run: func(d int) error {
		return reopen("/dev/fd/")
	}},
	{name: "proc self cwd", want: mut(intercept.OpCreate, "pc"), run: func(d int) error {
		return closeFD(unix.Open("/proc/self/cwd/pc", unix.O_WRONLY|unix.O_CREAT, 0o644))
	}},
	{name: "proc thread-self cwd", want: mut(intercept.OpCreate, "ts"), run: func(d int) error {
		return closeFD(unix.Open("/proc/thread-self/cwd/ts", unix.O_WRONLY|unix.O_CREAT, 0o644))
	}},
	{name: "pipe through proc", want: mut(intercept.OpOpenWrite, "/proc/*/fd/*"), run: func(d int) error {
		var p [2]int
		if err := unix.Pipe(p[:]); err != nil {
			return err
		}
		return closeFD(unix.Open("/proc/self/fd/"+strconv.Itoa(p[1]), unix.O_WRONLY, 0))
	}},
	{name: "renameat", want: mut(intercept.OpRename, "f", "g"), run: func(d int) error {
		return unix.Renameat(d, "f", d, "g")
	}},
	{name: "renameat2 exchange", want: mut(intercept.OpRename, "f", "l"), run: func(d int) error {
		return unix.Renameat2(d, "f", d, "l", unix.RENAME_EXCHANGE)
	}},
	{name: "unlinkat removedir", want: mut(intercept.OpRmdir, "e"), run: func(d int) error {
		return unix.Unlinkat(d, "e", unix.AT_REMOVEDIR)
	}},
	{name: "unlinkat symlink", want: mut(intercept.OpUnlink, "l"), run: func(d int) error {
		return unix.Unlinkat(d, "l", 0)
	}},
	{name: "mkdirat", want: mut(intercept.OpMkdir, "m"), run: func(d int) error {
		return unix.Mkdirat(d, "m", 0o755)
	}},
	{name: "mkdirat nested", want: mut(intercept.OpMkdir, "sub/m"), run: func(d int) error {
		return unix.Mkdirat(d, "sub/m", 0o755)
	}},
	{name: "mkdirat through dir symlink", want: mut(intercept.OpMkdir, "sub/m"), run: func(d int) error {
		return unix.Mkdirat(d, "ls/m", 0o755)
	}},
	{name: "unlinkat dir symlink itself", want: mut(intercept.OpUnlink, "ls"), run: func(d int) error {
		return unix.Unlinkat(d, "ls", 0)
	}},
	{name: "linkat follow", want: mut(intercept.OpLink, "h", "f"), run: func(d int) error {
		return unix.Linkat(d, "l", d, "h", unix.AT_SYMLINK_FOLLOW)
	}},
	{name: "linkat nofollow", want: mut(intercept.OpLink, "h", "l"), run: func(d int) error {
		return unix.Linkat(d, "l", d, "h", 0)
	}},
	{name: "symlinkat", want: mut(intercept.OpSymlink, "sub/s", "f"), run: func(d int) error {
		return unix.Symlinkat("../f", d, "sub/s")
	}},
	{name: "truncate", want: mut(intercept.OpTruncate, "f"), run: func(d int) error {
		return unix.Truncate("l", 1)
	}},
	{name: "ftruncate", want: mut(intercept.OpTruncate, "f"), run: func(d int) error {
		return withFD(unix.O_WRONLY, func(fd int) error { return unix.Ftruncate(fd, 1) })
	}},
	{name: "fchmod", want: mut(intercept.OpChmod, "f"), run: func(d int) error {
		return withFD(unix.O_RDONLY, func(fd int) error { return unix.Fchmod(fd, 0o600) })
	}},
	{name: "fchmodat", want: mut(intercept.OpChmod, "f"), run: func(d int) error {
		return unix.Fchmodat(d, "l", 0o600, 0)
	}},
	{name: "fchmodat2 nofollow", anyErr: true, want: mut(intercept.OpChmod, "l"), run: func(d int) error {
		return rawErr(unix.SYS_FCHMODAT2, uintptr(d), ptr("l"), 0o600, unix.AT_SYMLINK_NOFOLLOW)
	}},
	{name: "fchown", want: mut(intercept.OpChown, "f"), run: func(d int) error {
		return withFD(unix.O_RDONLY, func(fd int) error { return unix.Fchown(fd, os.Getuid(), -1) })
	}},
	{name: "fchownat empty path", want: mut(intercept.OpChown, "f"), run: func(d int) error {
		return withFD(unix.O_RDONLY, func(fd int) error {
			return unix.Fchownat(fd, "", os.Getuid(), -1, unix.AT_EMPTY_PATH)
		})
	}},
	{name: "fchownat nofollow", want: mut(intercept.OpChown, "l"), run: func(d int) error {
		return unix.Fchownat(d, "l", os.Getuid(), -1, unix.AT_SYMLINK_NOFOLLOW)
	}},
	{name: "utimensat null path", want: mut(intercept.OpUtimes, "f"), run: func(d int) error {
		return withFD(unix.O_RDONLY, func(fd int) error {
			return rawErr(unix.SYS_UTIMENSAT, uintptr(fd), 0, 0, 0)
		})
	}},
	{name: "utimensat nofollow", want: mut(intercept.OpUtimes, "l"), run: func(d int) error {
		return unix.UtimesNanoAt(d, "l", nil, unix.AT_SYMLINK_NOFOLLOW)
	}},
	{name: "mknodat", want: mut(intercept.OpMknod, "p"), run: func(d int) error {
		return unix.Mknodat(d, "p", unix.S_IFIFO|0o644, 0)
	}},
	{name: "io_uring_setup refused", err: unix.ENOSYS, run: func(d int) error {
		var params [120]byte // struct io_uring_params, zeroed
		fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)), 0)
		return closeFD(int(fd), errnoOrNil(errno))
	}},
	{name: "io_uring_enter refused", err: unix.ENOSYS, run: func(d int) error {
		return rawErr(unix.SYS_IO_URING_ENTER, 999, 1, 0, 0, 0, 0)
	}},
	{name: "io_uring_register refused", err: unix.ENOSYS, run: func(d int) error {
		return rawErr(unix.SYS_IO_URING_REGISTER, 999, 0, 0, 0)
	}},
	{name: "open_by_handle_at write refused", err: unix.EPERM, run: func(d int) error {
		return openByHandle(d, unix.O_WRONLY)
	}},
	{name: "open_by_handle_at read", err: byHandleReadErr(), run: func(d int) error {
		return openByHandle(d, unix.O_RDONLY)
	}},
	{name: "setxattr", want: mut(intercept.OpXattr, "f"), anyErr: true, run: func(d int) error {
		return unix.Setxattr("l", "user.k", []byte("v"), 0)
	}},
	{name: "lremovexattr", want: mut(intercept.OpXattr, "l"), anyErr: true, run: func(d int) error {
		return unix.Lremovexattr("l", "user.k")
	}},
	{name: "fsetxattr", want: mut(intercept.OpXattr, "f"), anyErr: true, run: func(d int) error {
		fd, err := unix.Openat(d, "f", unix.O_RDONLY, 0)
		if err != nil {
			return err
		}
		return closeFD(fd, unix.Fsetxattr(fd, "user.k", []byte("v"), 0))
	}},
	{name: "ioctl setflags", want: mut(intercept.OpSetFlags, "f"), anyErr: true, run: func(d int) error {
		fd, err := unix.Openat(d, "f", unix.O_RDONLY, 0)
		if err != nil {
			return err
		}
		flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
		if err == nil {
			err = unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, int(flags))
		}
		return closeFD(fd, err)
	}},
	{name: "bind unix path", want: mut(intercept.OpMknod, "sock"), run: func(d int) error {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		return closeFD(fd, unix.Bind(fd, &unix.SockaddrUnix{Name: "sock"}))
	}},
	{name: "bind abstract", run: func(d int) error {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		return closeFD(fd, unix.Bind(fd, &unix.SockaddrUnix{Name: "@leasegate-test-abstract"}))
	}},
	{name: "acct refused", err: unix.EPERM, run: func(d int) error {
		return rawErr(unix.SYS_ACCT, ptr("f"))
	}},
	{name: "open_tree refused", err: unix.EPERM, run: func(d int) error {
		return rawErr(unix.SYS_OPEN_TREE, uintptr(d), ptr("."), 1)
	}},
	{name: "chroot refused", err: unix.EPERM, run: func(d int) error {
		return rawErr(unix.SYS_CHROOT, ptr("sub"))
	}},
	{name: "ptrace attach of init refused", err: unix.EPERM, run: func(d int) error {
		return rawErr(unix.SYS_PTRACE, unix.PTRACE_ATTACH, 1, 0, 0)
	}},
	{name: "emulated open keeps append and cloexec", want: mut(intercept.OpOpenWrite, "f"), run: func(d int) error {
		fd, err := unix.Openat(d, "f", unix.O_WRONLY|unix.O_APPEND|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		fdfl, err2 := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		switch {
		case err != nil || err2 != nil:
			return closeFD(fd, errors.Join(err, err2))
		case fl&unix.O_APPEND == 0 || fl&unix.O_NONBLOCK != 0 || fdfl&unix.FD_CLOEXEC == 0:
			return closeFD(fd, fmt.Errorf("flags %#x, fd flags %#x: want O_APPEND, no O_NONBLOCK, FD_CLOEXEC", fl, fdfl))
		}
		return closeFD(fd, nil)
	}},
	{name: "create after umask takes the worker's umask", want: mut(intercept.OpCreate, "u"), run: func(d int) error {
		old := unix.Umask(0o027)
		defer unix.Umask(old)
		err := closeFD(unix.Openat(d, "u", unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o666))
		var st unix.Stat_t
		if err == nil {
			err = unix.Fstatat(d, "u", &st, 0)
		}
		if err == nil && st.Mode&0o777 != 0o640 {
			err = fmt.Errorf("mode %o, want 640", st.Mode&0o777)
		}
		return err
	}},
	{name: "openat2 read nofollow of a symlink", err: unix.ELOOP, run: func(d int) error {
		return closeFD(unix.Openat2(d, "l", &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_NOFOLLOW}))
	}},
	{name: "openat2 read through a symlink", run: func(d int) error {
		fd, err := unix.Openat2(d, "l", &unix.OpenHow{Flags: unix.O_RDONLY})
		if err != nil {
			return err
		}
		buf := make([]byte, 8)
		n, err := unix.Read(fd, buf)
		if err == nil && string(buf[:n]) != "data" {
			err = fmt.Errorf("read %q through l, want f's %q", buf[:n], "data")
		}
		return closeFD(fd, err)
	}},
	{name: "bad pointer", err: unix.EFAULT, run: func(d int) error {
		return rawErr(unix.SYS_OPENAT, uintptr(d), 8, unix.O_WRONLY|unix.O_CREAT, 0o644)
	}},
	{name: "empty path", err: unix.ENOENT, run: func(d int) error {
		return closeFD(unix.Openat(d, "", unix.O_WRONLY, 0))
	}},
	{name: "path too long", err: unix.ENAMETOOLONG, run: func(d int) error {
		return closeFD(unix.Openat(d, strings.Repeat("a/", 2100), unix.O_WRONLY|unix.O_CREAT, 0o644))
	}},
	{name: "closed dirfd", err: unix.EBADF, run: func(d int) error {
		return closeFD(unix.Openat(999, "x", unix.O_WRONLY|unix.O_CREAT, 0o644))
	}},
}

// TestSyscalls makes each gated syscall directly and checks what is
// reported and what the syscall returns.
func TestSyscalls(t *testing.T) {
	for _, tc := range append(portableCases, legacyCases...) {
		t.Run(tc.name, func(t *testing.T) {
			dir := tempDir(t)
			mustWrite(t, dir, map[string]string{"f": "data", "l": "->f", "sub/": "", "ls": "->sub", "e/": ""})
			rec := &recorder{}
			res := runProgram(t, dir, rec, "syscall-case", tc.name)
			if res.code != 0 {
				t.Fatalf("%s: %s", tc.name, res.output)
			}
			got := rec.All()
			switch {
			case tc.want == nil && len(got) != 0:
				t.Errorf("%s: got%s\nwant no mutation", tc.name, format(got))
			case tc.want != nil && !slices.ContainsFunc(got, tc.want.matcher(dir, "")):
				t.Errorf("%s: got%s\nwant %s %q", tc.name, format(got), tc.want.op, tc.want.paths)
			}
		})
	}
}

// syscallCaseProgram runs the case named args[0] in the cwd and checks
// its errno.
func syscallCaseProgram(args []string) int {
	i := slices.IndexFunc(append(portableCases, legacyCases...), func(c syscallCase) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Println("no case", args[0])
		return 2
	}
	tc := append(portableCases, legacyCases...)[i]
	dirfd, err := unix.Open(".", unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		fmt.Println(err)
		return 2
	}
	err = tc.run(dirfd)
	var errno unix.Errno
	errors.As(err, &errno)
	if !tc.anyErr && errno != tc.err {
		fmt.Printf("got error %v, want errno %d (%v)\n", err, tc.err, tc.err)
		return 1
	}
	return 0
}

// closeFD closes the fd of a successful open and passes its error on.
func closeFD(fd int, err error) error {
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// withFD runs fn on an fd of f opened with flags.
func withFD(flags int, fn func(fd int) error) error {
	fd, err := unix.Open("f", flags, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return fn(fd)
}

// reopen opens f read-only, then for writing through prefix+fd.
func reopen(prefix string) error {
	return withFD(unix.O_RDONLY, func(fd int) error {
		return closeFD(unix.Open(prefix+strconv.Itoa(fd), unix.O_WRONLY, 0))
	})
}

// rawErr makes a raw syscall and returns its errno (nil if none).
// openByHandle opens f through its file handle with flags.
func openByHandle(dirfd, flags int) error {
	h, _, err := unix.NameToHandleAt(dirfd, "f", 0)
	if err != nil {
		return err
	}
	mount, err := unix.Open(".", unix.O_RDONLY|unix.O_DIRECTORY, 0) // not O_PATH: the kernel wants an open file
	if err != nil {
		return err
	}
	defer unix.Close(mount)
	return closeFD(unix.OpenByHandleAt(mount, h, flags))
}

// byHandleReadErr is what a read open by handle gives: it needs
// CAP_DAC_READ_SEARCH, which root has.
func byHandleReadErr() unix.Errno {
	if os.Geteuid() == 0 {
		return 0
	}
	return unix.EPERM
}

func errnoOrNil(errno unix.Errno) error {
	if errno != 0 {
		return errno
	}
	return nil
}

func rawErr(nr uintptr, a ...uintptr) error {
	a = append(a, 0, 0, 0, 0, 0, 0)
	_, _, errno := unix.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	return errnoOrNil(errno)
}

// ptr returns a pointer to a NUL-terminated copy of s. The strings live
// as long as the program; the tests are one-shot processes.
func ptr(s string) uintptr {
	b := append([]byte(s), 0)
	keep = append(keep, b)
	return uintptr(unsafe.Pointer(&b[0]))
}

var keep [][]byte
