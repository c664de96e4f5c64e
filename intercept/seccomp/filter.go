//go:build linux && (amd64 || arm64)

package seccomp

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// Offsets into struct seccomp_data, which the filter reads.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// writeOpenFlags are the open flags that can change a file: a write access
// mode, O_CREAT and O_TRUNC. O_APPEND is left out on purpose: without a
// write access mode it changes nothing, and with one the access mode is
// caught already.
const writeOpenFlags = unix.O_WRONLY | unix.O_RDWR | unix.O_CREAT | unix.O_TRUNC

// tmpfileFlag is __O_TMPFILE, the bit that makes O_TMPFILE (which also
// includes O_DIRECTORY). Such an open creates a file without a name, which
// changes no path until a later linkat names it, so the filter lets it run.
const tmpfileFlag = unix.O_TMPFILE &^ unix.O_DIRECTORY

// noRingSyscalls are io_uring's. A ring performs opens, renames, unlinks
// and writes from a submission queue that no filter sees, so a worker could
// change the tree past the gate through one. The filter fails them with
// ENOSYS, as a kernel without io_uring would; runtimes that try io_uring
// (libuv, liburing, tokio-uring) fall back to plain syscalls on ENOSYS.
var noRingSyscalls = []uint32{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER}

// openByHandleFlagsArg is the flags argument of open_by_handle_at. Its file
// handle names an inode, not a path, so a write open through it cannot be
// gated; the filter fails those with EPERM (what the kernel answers a
// caller without CAP_DAC_READ_SEARCH) and lets read opens through.
const openByHandleFlagsArg = 2

// fsIoctls are the ioctl commands that change a file's attributes through
// an fd (chattr: immutable, append-only, project ids): notified, and gated
// like a chmod of the file. The command is an unsigned int, so the filter
// compares the low 32 bits, as the kernel reads them.
var fsIoctls = []uint32{unix.FS_IOC_SETFLAGS, fsIoc32SetFlags, fsIocFSSetXattr}

// fsIoc32SetFlags is FS_IOC32_SETFLAGS, which 64-bit kernels accept too.
const fsIoc32SetFlags = 0x40046602

// fsIocFSSetXattr is FS_IOC_FSSETXATTR, _IOW('X', 32, struct fsxattr).
const fsIocFSSetXattr = 0x401c5820

// attachRequests are the ptrace requests that take a new tracee: notified,
// and allowed only for a process of the worker's own tree (process.go).
// Every other request acts on a tracee already attached.
var attachRequests = []uint32{unix.PTRACE_ATTACH, unix.PTRACE_SEIZE}

// buildFilter assembles the classic BPF program installed in the worker:
//
//	arch != native          -> kill the process (foreign syscall numbers)
//	nr has the x32 bit      -> kill the process (amd64 only; nr -1 is allowed)
//	nr is ioctl             -> notify if the command sets file attributes
//	nr is ptrace            -> notify if the request attaches
//	nr is io_uring's        -> fail with ENOSYS
//	nr is refused           -> fail with that entry's errno
//	nr is open_by_handle_at -> fail with EPERM if the flags have a write flag
//	nr is gated always      -> notify
//	nr is open/openat       -> notify if the flags argument has a write flag
//	anything else           -> allow, in the kernel
//
// The flags are read from the low 32 bits of the argument (offset +0 on
// these little-endian architectures): open flags are an int.
func buildFilter(table []syscallEntry, refused []refusal) ([]unix.SockFilter, error) {
	var b bpfBuilder
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch)
	b.jump(unix.BPF_JEQ, nativeArch, "", "kill")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr)
	if x32Bit != 0 {
		// nr -1 has the x32 bit too, but is no x32 syscall: programs
		// make it to probe for a filter, and the kernel answers ENOSYS.
		b.jump(unix.BPF_JEQ, 0xffffffff, "allow", "")
		b.jump(unix.BPF_JGE, x32Bit, "kill", "")
	}
	b.jump(unix.BPF_JEQ, unix.SYS_IOCTL, "ioctl", "")
	b.jump(unix.BPF_JEQ, unix.SYS_PTRACE, "ptrace", "")
	for _, nr := range noRingSyscalls {
		b.jump(unix.BPF_JEQ, nr, "nosys", "")
	}
	errnos := map[unix.Errno]bool{}
	for _, r := range refused {
		b.jump(unix.BPF_JEQ, r.nr, "errno"+strconv.Itoa(int(r.errno)), "")
		errnos[r.errno] = true
	}
	b.jump(unix.BPF_JEQ, unix.SYS_OPEN_BY_HANDLE_AT, "byhandle", "")
	var flagArgs []int
	for _, e := range table {
		target := "notify"
		if e.flagsArg != always {
			target = "flags" + strconv.Itoa(e.flagsArg)
			flagArgs = append(flagArgs, e.flagsArg)
		}
		b.jump(unix.BPF_JEQ, e.nr, target, "")
	}
	b.label("allow")
	b.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW)
	slices.Sort(flagArgs)
	for _, arg := range slices.Compact(flagArgs) {
		b.label("flags" + strconv.Itoa(arg))
		b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, uint32(offArgs+8*arg))
		b.jump(unix.BPF_JSET, tmpfileFlag, "allow"+strconv.Itoa(arg), "")
		b.jump(unix.BPF_JSET, writeOpenFlags, "notify", "")
		b.label("allow" + strconv.Itoa(arg))
		b.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW)
	}
	argCheck(&b, "ioctl", 1, fsIoctls)
	argCheck(&b, "ptrace", 0, attachRequests)
	b.label("byhandle")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, uint32(offArgs+8*openByHandleFlagsArg))
	b.jump(unix.BPF_JSET, writeOpenFlags, "", "readbyhandle")
	b.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM))
	b.label("readbyhandle")
	b.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW)
	b.label("nosys")
	b.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS))
	for _, errno := range slices.Sorted(maps.Keys(errnos)) {
		b.label("errno" + strconv.Itoa(int(errno)))
		b.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(errno))
	}
	b.label("notify")
	b.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_USER_NOTIF)
	b.label("kill")
	b.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_KILL_PROCESS)
	return b.assemble()
}

// argCheck emits the section at label that notifies when the low 32 bits
// of argument arg equal one of values, and allows otherwise.
func argCheck(b *bpfBuilder, label string, arg int, values []uint32) {
	b.label(label)
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, uint32(offArgs+8*arg))
	for _, v := range values {
		b.jump(unix.BPF_JEQ, v, "notify", "")
	}
	b.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW)
}

// bpfBuilder assembles classic BPF with forward jumps to named labels.
type bpfBuilder struct {
	prog   []unix.SockFilter
	labels map[string]int
	fixups []fixup
}

// fixup is a jump whose offset is known once its label is placed.
type fixup struct {
	at     int
	label  string
	isTrue bool
}

// stmt appends a non-jump instruction.
func (b *bpfBuilder) stmt(code uint16, k uint32) {
	b.prog = append(b.prog, unix.SockFilter{Code: code, K: k})
}

// jump appends a conditional jump; an empty label means the next
// instruction.
func (b *bpfBuilder) jump(cond uint16, k uint32, ifTrue, ifFalse string) {
	at := len(b.prog)
	b.stmt(unix.BPF_JMP|cond|unix.BPF_K, k)
	if ifTrue != "" {
		b.fixups = append(b.fixups, fixup{at: at, label: ifTrue, isTrue: true})
	}
	if ifFalse != "" {
		b.fixups = append(b.fixups, fixup{at: at, label: ifFalse})
	}
}

// label names the position of the next instruction.
func (b *bpfBuilder) label(name string) {
	if b.labels == nil {
		b.labels = map[string]int{}
	}
	b.labels[name] = len(b.prog)
}

// assemble resolves the jumps. Classic BPF only jumps forward, by at most
// 255 instructions.
func (b *bpfBuilder) assemble() ([]unix.SockFilter, error) {
	for _, f := range b.fixups {
		to, ok := b.labels[f.label]
		off := to - f.at - 1
		if !ok || off < 0 || off > 255 {
			return nil, fmt.Errorf("bpf jump from %d to %q (%d) out of range", f.at, f.label, to)
		}
		if f.isTrue {
			b.prog[f.at].Jt = uint8(off)
		} else {
			b.prog[f.at].Jf = uint8(off)
		}
	}
	return b.prog, nil
}
