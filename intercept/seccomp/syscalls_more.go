//go:build linux && (amd64 || arm64)

package seccomp

import (
	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

// moreTable lists the syscalls notified on both architectures beyond the
// path table: names created by bind, extended attributes, file attributes
// by path, the syscalls that reach into another process, and those that
// change what an emulated open must match (umask, credentials).
var moreTable = []syscallEntry{
	{unix.SYS_BIND, "bind", always, decodeBind},
	{unix.SYS_SETXATTR, "setxattr", always, decodeXattrPath(true)},
	{unix.SYS_LSETXATTR, "lsetxattr", always, decodeXattrPath(false)},
	{unix.SYS_FSETXATTR, "fsetxattr", always, decodeXattrFD},
	{unix.SYS_REMOVEXATTR, "removexattr", always, decodeXattrPath(true)},
	{unix.SYS_LREMOVEXATTR, "lremovexattr", always, decodeXattrPath(false)},
	{unix.SYS_FREMOVEXATTR, "fremovexattr", always, decodeXattrFD},
	{unix.SYS_SETXATTRAT, "setxattrat", always, decodeXattrat},
	{unix.SYS_REMOVEXATTRAT, "removexattrat", always, decodeXattrat},
	{unix.SYS_FILE_SETATTR, "file_setattr", always, decodeFileSetattr},
	{unix.SYS_PROCESS_VM_WRITEV, "process_vm_writev", always, decodeProcessPid},
	{unix.SYS_PIDFD_OPEN, "pidfd_open", always, decodeProcessPid},
	{unix.SYS_PIDFD_GETFD, "pidfd_getfd", always, decodePidfdGetfd},
	{unix.SYS_UMASK, "umask", always, decodeMarker(opUmask)},
	{unix.SYS_SETUID, "setuid", always, decodeMarker(opCreds)},
	{unix.SYS_SETGID, "setgid", always, decodeMarker(opCreds)},
	{unix.SYS_SETREUID, "setreuid", always, decodeMarker(opCreds)},
	{unix.SYS_SETREGID, "setregid", always, decodeMarker(opCreds)},
	{unix.SYS_SETRESUID, "setresuid", always, decodeMarker(opCreds)},
	{unix.SYS_SETRESGID, "setresgid", always, decodeMarker(opCreds)},
	{unix.SYS_SETFSUID, "setfsuid", always, decodeMarker(opCreds)},
	{unix.SYS_SETFSGID, "setfsgid", always, decodeMarker(opCreds)},
	{unix.SYS_SETGROUPS, "setgroups", always, decodeMarker(opCreds)},
	{unix.SYS_CAPSET, "capset", always, decodeMarker(opCreds)},
}

// opUmask and opCreds mark syscalls that change nothing in the tree but
// what an emulated open must match (emulate.go): the worker's umask, its
// credentials. Seen once, the supervisor checks them before each
// emulated open from then on.
const (
	opUmask intercept.Op = "umask"
	opCreds intercept.Op = "creds"
)

// decodeMarker returns a decoder for a syscall that only marks op.
func decodeMarker(op intercept.Op) decoder {
	return func(args, *tracee) (request, error) { return request{op: op}, errNoMutation }
}

// argTable lists the syscalls the filter notifies only for some values of
// an argument (fsIoctls, attachRequests): they are not in the filter's
// table, but their decoders are looked up like the others'.
var argTable = []syscallEntry{
	{unix.SYS_IOCTL, "ioctl", always, decodeIoctl},
	{unix.SYS_PTRACE, "ptrace", always, decodeProcessPid2},
}

// refusal is a syscall the filter fails with errno, in the kernel.
type refusal struct {
	nr    uint32
	name  string
	errno unix.Errno
}

// refusedTable lists the syscalls a worker may not make at all, with the
// errno of a caller without the privilege. Mounts would put the
// workspace's files under paths the gate resolves as elsewhere (a bind
// mount, a detached tree from open_tree, a new root from chroot or
// pivot_root, another namespace's view through setns); acct and swapon make the kernel write a named file with no
// further syscall; modules and kexec run code in the kernel.
var refusedTable = []refusal{
	{unix.SYS_MOUNT, "mount", unix.EPERM},
	{unix.SYS_UMOUNT2, "umount2", unix.EPERM},
	{unix.SYS_PIVOT_ROOT, "pivot_root", unix.EPERM},
	{unix.SYS_CHROOT, "chroot", unix.EPERM},
	{unix.SYS_OPEN_TREE, "open_tree", unix.EPERM},
	{unix.SYS_OPEN_TREE_ATTR, "open_tree_attr", unix.EPERM},
	{unix.SYS_MOVE_MOUNT, "move_mount", unix.EPERM},
	{unix.SYS_FSOPEN, "fsopen", unix.EPERM},
	{unix.SYS_FSCONFIG, "fsconfig", unix.EPERM},
	{unix.SYS_FSMOUNT, "fsmount", unix.EPERM},
	{unix.SYS_FSPICK, "fspick", unix.EPERM},
	{unix.SYS_MOUNT_SETATTR, "mount_setattr", unix.EPERM},
	{unix.SYS_SETNS, "setns", unix.EPERM},
	{unix.SYS_ACCT, "acct", unix.EPERM},
	{unix.SYS_SWAPON, "swapon", unix.EPERM},
	{unix.SYS_SWAPOFF, "swapoff", unix.EPERM},
	{unix.SYS_INIT_MODULE, "init_module", unix.EPERM},
	{unix.SYS_FINIT_MODULE, "finit_module", unix.EPERM},
	{unix.SYS_DELETE_MODULE, "delete_module", unix.EPERM},
	{unix.SYS_KEXEC_LOAD, "kexec_load", unix.EPERM},
	{unix.SYS_KEXEC_FILE_LOAD, "kexec_file_load", unix.EPERM},
}

// notifiedTable is everything the filter notifies unconditionally or by
// open flags: the architecture's path table, then moreTable.
func notifiedTable() []syscallEntry {
	return append(append([]syscallEntry(nil), syscallTable...), moreTable...)
}
