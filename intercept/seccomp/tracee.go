//go:build linux && (amd64 || arm64)

package seccomp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pageSize bounds each read of the tracee's memory, so that a string
// ending just before an unmapped page is still read whole.
var pageSize = uint64(os.Getpagesize())

// tracee reads the state of a thread held in a notified syscall from
// /proc/<tid> and from its memory. Everything it returns is only
// trustworthy once the notification was found still valid afterwards (see
// notifValid).
type tracee struct {
	tid int
	// pid is the thread's process id, once snapshot has read it.
	pid     int
	tgids   *tgidCache
	lookups *lookups
	// buf is scratch space of at least PATH_MAX bytes for one string at a
	// time; what is returned is copied out of it.
	buf []byte
}

// proc returns /proc/<tid>/<name>.
func (t *tracee) proc(name string) string {
	return "/proc/" + strconv.Itoa(t.tid) + "/" + name
}

// readAt reads the tracee's memory at addr. It uses process_vm_readv,
// which reads what /proc/<tid>/mem would (same ptrace access check) in one
// syscall instead of open, pread and close: 1.6 µs instead of 8.7 µs here.
// An unmapped address reads as EFAULT, which is what the kernel would
// answer the tracee.
func (t *tracee) readAt(buf []byte, addr uint64) (int, error) {
	local := []unix.Iovec{{Base: &buf[0]}}
	local[0].SetLen(len(buf))
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(buf)}}
	n, err := unix.ProcessVMReadv(t.tid, local, remote, 0)
	if n <= 0 && (err == nil || errors.Is(err, unix.EFAULT) || errors.Is(err, unix.EIO)) {
		return 0, unix.EFAULT
	}
	return n, err
}

// firstRead is how much readString reads first: most paths are shorter,
// and a short read is cheaper than one to the end of the page.
const firstRead = 256

// readString reads a NUL-terminated path of at most PATH_MAX bytes, page
// by page: process_vm_readv does not split an iovec, so a read across into
// an unmapped page would fail as a whole. A longer path is ENAMETOOLONG,
// as in the kernel.
func (t *tracee) readString(addr uint64) (string, error) {
	if addr == 0 {
		return "", unix.EFAULT
	}
	buf := t.buf[:unix.PathMax]
	for n := 0; n < len(buf); {
		at := addr + uint64(n)
		chunk := min(uint64(len(buf)-n), pageSize-at%pageSize)
		if n == 0 {
			chunk = min(chunk, firstRead)
		}
		k, err := t.readAt(buf[n:n+int(chunk)], at)
		if err != nil {
			return "", err
		}
		if i := bytes.IndexByte(buf[n:n+k], 0); i >= 0 {
			return string(buf[:n+i]), nil
		}
		n += k
	}
	return "", unix.ENAMETOOLONG
}

// readUint64 reads one native-endian 64-bit word.
func (t *tracee) readUint64(addr uint64) (uint64, error) {
	var b [8]byte
	n, err := t.readAt(b[:], addr)
	if err != nil {
		return 0, err
	}
	if n < len(b) {
		return 0, unix.EFAULT
	}
	return binary.NativeEndian.Uint64(b[:]), nil
}

// tgid returns the thread's process id.
func (t *tracee) tgid() (int, error) { return t.tgids.lookup(t.tid) }

// fdLink reads where the tracee's fd points: the cwd for AT_FDCWD (which
// lookups remembers for a moment), else the /proc/<tid>/fd/<n> magic
// link. A closed fd is EBADF, as in the kernel.
func (t *tracee) fdLink(fd int) (string, error) {
	if fd == unix.AT_FDCWD {
		return t.lookups.cwd(t.tid, t.pid, func() (string, error) { return t.verifiedLink(t.proc("cwd")) })
	}
	if fd < 0 {
		return "", unix.EBADF
	}
	link, err := t.verifiedLink(t.proc("fd/" + strconv.Itoa(fd)))
	if errors.Is(err, unix.ENOENT) {
		return "", unix.EBADF
	}
	return link, err
}

// verifiedLink reads a magic link and checks that it names the file it
// leads to (verifyLink).
func (t *tracee) verifiedLink(proc string) (string, error) {
	link, err := t.readlink(proc)
	if err == nil {
		err = verifyLink(proc, link)
	}
	return link, err
}

// readlink reads a symlink into the scratch buffer. A link as long as the
// buffer may have been cut short and is read again by os.Readlink.
func (t *tracee) readlink(path string) (string, error) {
	n, err := unix.Readlink(path, t.buf)
	switch {
	case err != nil:
		return "", err
	case n < len(t.buf):
		return string(t.buf[:n]), nil
	}
	link, err := os.Readlink(path)
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return link, err
}
