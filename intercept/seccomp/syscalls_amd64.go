//go:build linux

package seccomp

import "golang.org/x/sys/unix"

// nativeArch is the AUDIT_ARCH value of the syscalls this table describes.
// Syscalls of any other architecture (32-bit x86 through int 0x80) are
// killed by the filter: their numbers differ and would slip past it.
const nativeArch = unix.AUDIT_ARCH_X86_64

// x32Bit marks x32 ABI syscall numbers, which share AUDIT_ARCH_X86_64 with
// native amd64 ones; the filter kills them for the same reason.
const x32Bit = 0x40000000

// syscallTable lists every syscall the filter sends to user space.
var syscallTable = []syscallEntry{
	{unix.SYS_OPEN, "open", 1, decodeOpen},
	{unix.SYS_OPENAT, "openat", 2, decodeOpenat},
	{unix.SYS_OPENAT2, "openat2", always, decodeOpenat2},
	{unix.SYS_CREAT, "creat", always, decodeCreat},
	{unix.SYS_RENAME, "rename", always, decodeRename},
	{unix.SYS_RENAMEAT, "renameat", always, decodeRenameat},
	{unix.SYS_RENAMEAT2, "renameat2", always, decodeRenameat},
	{unix.SYS_UNLINK, "unlink", always, decodeUnlink},
	{unix.SYS_UNLINKAT, "unlinkat", always, decodeUnlinkat},
	{unix.SYS_MKDIR, "mkdir", always, decodeMkdir},
	{unix.SYS_MKDIRAT, "mkdirat", always, decodeMkdirat},
	{unix.SYS_RMDIR, "rmdir", always, decodeRmdir},
	{unix.SYS_LINK, "link", always, decodeLink},
	{unix.SYS_LINKAT, "linkat", always, decodeLinkat},
	{unix.SYS_SYMLINK, "symlink", always, decodeSymlink},
	{unix.SYS_SYMLINKAT, "symlinkat", always, decodeSymlinkat},
	{unix.SYS_TRUNCATE, "truncate", always, decodeTruncate},
	{unix.SYS_FTRUNCATE, "ftruncate", always, decodeFtruncate},
	{unix.SYS_CHMOD, "chmod", always, decodeChmod},
	{unix.SYS_FCHMOD, "fchmod", always, decodeFchmod},
	{unix.SYS_FCHMODAT, "fchmodat", always, decodeFchmodat},
	{unix.SYS_FCHMODAT2, "fchmodat2", always, decodeFchmodat2},
	{unix.SYS_CHOWN, "chown", always, decodeChown},
	{unix.SYS_FCHOWN, "fchown", always, decodeFchown},
	{unix.SYS_LCHOWN, "lchown", always, decodeLchown},
	{unix.SYS_FCHOWNAT, "fchownat", always, decodeFchownat},
	{unix.SYS_UTIME, "utime", always, decodeUtimes},
	{unix.SYS_UTIMES, "utimes", always, decodeUtimes},
	{unix.SYS_FUTIMESAT, "futimesat", always, decodeFutimesat},
	{unix.SYS_UTIMENSAT, "utimensat", always, decodeUtimensat},
	{unix.SYS_MKNOD, "mknod", always, decodeMknod},
	{unix.SYS_MKNODAT, "mknodat", always, decodeMknodat},
	{unix.SYS_CHDIR, "chdir", always, decodeChdir},
	{unix.SYS_FCHDIR, "fchdir", always, decodeChdir},
}
