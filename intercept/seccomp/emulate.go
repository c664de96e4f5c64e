//go:build linux && (amd64 || arm64)

package seccomp

import (
	"os"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept/procfs"
)

// openCall is an open the supervisor makes in the worker's place: the
// path it resolved and checked, and the flags and mode it read once.
type openCall struct {
	path  string
	flags uint64
	mode  uint32
}

// callOf is the open to emulate for req, whose first path, named in the
// tracee as written, resolved to paths[0]; nil for syscalls that are not
// opens. A trailing slash is kept: it asks the kernel for a directory, so
// the supervisor's open fails where the worker's would (EISDIR for a
// create, ENOTDIR for a file) instead of opening the file.
func callOf(req request, written string, paths []string) *openCall {
	intent := req.open
	if intent == nil {
		intent = req.call
	}
	if intent == nil || len(paths) == 0 {
		return nil
	}
	path := paths[0]
	if strings.HasSuffix(written, "/") && path != "/" {
		path += "/"
	}
	return &openCall{path: path, flags: intent.flags, mode: intent.mode}
}

// seccompNotifAddfd mirrors struct seccomp_notif_addfd.
type seccompNotifAddfd struct {
	ID         uint64
	Flags      uint32
	Srcfd      uint32
	Newfd      uint32
	NewfdFlags uint32
}

// emulatedResolve is how the supervisor looks up a path it resolved
// itself: every symlink on it is already followed, so a symlink found now
// was put there since the check (a directory swapped for a link) and the
// open fails with ELOOP instead of going where the link leads.
const emulatedResolve = unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// respond answers a notification with a Decider's verdict err (nil:
// allowed). An allowed open is made by the supervisor and its fd
// installed in the worker as the syscall's result (addfdSend), so the
// file opened is the one checked, with the flags
// checked, whatever the worker changes in its memory meanwhile. Anything
// else allowed, and an open that cannot be emulated faithfully, continues
// in the kernel.
func (s *Supervisor) respond(n notif, c *openCall, err error) {
	if err != nil || c == nil || !s.emulable(n, c) {
		s.send(n, responseFor(n.ID, err))
		return
	}
	if !notifValid(s.listener, n.ID) {
		return // no one to open for: the open would act for nothing
	}
	resp, ok := s.emulate(n, c)
	switch {
	case !ok:
		s.send(n, continueResp(n.ID))
	case resp.ID != 0:
		s.send(n, resp)
	}
}

// emulable reports whether the supervisor can open c exactly as the
// worker's thread would: a path outside /proc, /sys and /dev (but
// /dev/shm), whose files mean something else to another opener (magic
// links, the caller's terminal) or act on open (a watchdog), with the same credentials (unless
// a worker process ever changed its own), and for a create, the same
// umask (the worker's, once any of its processes changed it, must not
// lose bits the supervisor's own umask would strip).
func (s *Supervisor) emulable(n notif, c *openCall) bool {
	if strings.HasPrefix(c.path, "/proc/") || strings.HasPrefix(c.path, "/sys/") ||
		(strings.HasPrefix(c.path, "/dev/") && !strings.HasPrefix(c.path, "/dev/shm/")) {
		return false
	}
	creds := s.credsChanged.Load()
	mask := c.flags&unix.O_CREAT != 0 && s.umaskChanged.Load()
	if !creds && !mask {
		return true
	}
	st, err := procfs.ReadStatus(int(n.PID))
	if err != nil {
		return false
	}
	if creds && (st.FSUID != os.Geteuid() || st.FSGID != os.Getegid()) {
		return false
	}
	// Only an equal umask gives the same mode: the kernel applies the
	// supervisor's own to its open.
	return !mask || st.Umask == s.umask
}

// emulate opens c and installs the fd in the worker as the syscall's
// result. It returns ok false, having changed nothing, when the file
// turns out not to be a regular one (a FIFO would block, a device may
// act on open): the kernel then makes the open itself.
func (s *Supervisor) emulate(n notif, c *openCall) (notifResp, bool) {
	// An O_CREAT|O_EXCL open that succeeds made a new regular file (a
	// checkout's every file): nothing to look at. Any other may find a
	// FIFO or a device: O_NONBLOCK keeps a FIFO's open from blocking, and
	// is taken off again below for a regular file that did not ask for it.
	fresh := c.flags&(unix.O_CREAT|unix.O_EXCL) == unix.O_CREAT|unix.O_EXCL
	flags := c.flags | unix.O_CLOEXEC | unix.O_NOCTTY
	if !fresh {
		flags |= unix.O_NONBLOCK
	}
	how := unix.OpenHow{Flags: flags, Mode: uint64(c.mode), Resolve: emulatedResolve}
	fd, err := unix.Openat2(unix.AT_FDCWD, c.path, &how)
	errno, _ := err.(unix.Errno)
	switch {
	case err == nil:
	case errno == unix.ENXIO && !fresh:
		return notifResp{}, false // a FIFO without a reader: the worker's open waits for one
	case errno == 0:
		return errnoResp(n.ID, unix.EACCES), true
	default:
		return errnoResp(n.ID, errno), true
	}
	defer unix.Close(fd)
	if !fresh && !s.keepFlags(fd, c.flags) {
		return notifResp{}, false
	}
	add := seccompNotifAddfd{ID: n.ID, Srcfd: uint32(fd)}
	if c.flags&unix.O_CLOEXEC != 0 {
		add.NewfdFlags = unix.O_CLOEXEC
	}
	if err := addfdSend(s.listener, &add); err != nil {
		errno, _ := err.(unix.Errno)
		if errno == unix.ENOENT || errno == 0 {
			return notifResp{}, true // the thread is gone: nothing to answer
		}
		return errnoResp(n.ID, errno), true // EMFILE: the worker's fd table is full
	}
	return notifResp{}, true
}

// keepFlags reports whether fd, opened with O_NONBLOCK added, is a
// regular file, and gives it back the status flags the worker asked for
// (F_SETFL changes only those: O_APPEND, O_DIRECT, O_NOATIME,
// O_NONBLOCK...).
func (s *Supervisor) keepFlags(fd int, flags uint64) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	if flags&(unix.O_NONBLOCK|unix.O_PATH) != 0 {
		return true
	}
	_, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, int(flags))
	return err == nil
}

// ownUmask reads this process's umask without changing it.
func ownUmask() uint32 {
	st, err := procfs.ReadStatus(os.Getpid())
	if err != nil {
		return 0o777 // unknown: no worker umask will match, creates continue
	}
	return st.Umask
}

// changes are the sticky facts emulable needs: set once any worker
// process calls umask or changes its credentials.
type changes struct {
	umaskChanged atomic.Bool
	credsChanged atomic.Bool
}
