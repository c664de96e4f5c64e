//go:build linux

package seccomp

import "golang.org/x/sys/unix"

// nativeArch is the AUDIT_ARCH value of the syscalls this table describes.
// Syscalls of any other architecture (32-bit arm compat) are killed by the
// filter: their numbers differ and would slip past it.
const nativeArch = unix.AUDIT_ARCH_AARCH64

// x32Bit is zero: arm64 has no second ABI sharing its AUDIT_ARCH value.
const x32Bit = 0

// syscallTable lists every syscall the filter sends to user space. arm64
// uses the generic table: only the *at forms exist.
var syscallTable = []syscallEntry{
	{unix.SYS_OPENAT, "openat", 2, decodeOpenat},
	{unix.SYS_OPENAT2, "openat2", always, decodeOpenat2},
	{unix.SYS_RENAMEAT, "renameat", always, decodeRenameat},
	{unix.SYS_RENAMEAT2, "renameat2", always, decodeRenameat},
	{unix.SYS_UNLINKAT, "unlinkat", always, decodeUnlinkat},
	{unix.SYS_MKDIRAT, "mkdirat", always, decodeMkdirat},
	{unix.SYS_LINKAT, "linkat", always, decodeLinkat},
	{unix.SYS_SYMLINKAT, "symlinkat", always, decodeSymlinkat},
	{unix.SYS_TRUNCATE, "truncate", always, decodeTruncate},
	{unix.SYS_FTRUNCATE, "ftruncate", always, decodeFtruncate},
	{unix.SYS_FCHMOD, "fchmod", always, decodeFchmod},
	{unix.SYS_FCHMODAT, "fchmodat", always, decodeFchmodat},
	{unix.SYS_FCHMODAT2, "fchmodat2", always, decodeFchmodat2},
	{unix.SYS_FCHOWN, "fchown", always, decodeFchown},
	{unix.SYS_FCHOWNAT, "fchownat", always, decodeFchownat},
	{unix.SYS_UTIMENSAT, "utimensat", always, decodeUtimensat},
	{unix.SYS_MKNODAT, "mknodat", always, decodeMknodat},
	{unix.SYS_CHDIR, "chdir", always, decodeChdir},
	{unix.SYS_FCHDIR, "fchdir", always, decodeChdir},
}
