//go:build amd64 || arm64

package fuse

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fs"
	"golang.org/x/sys/unix"
)

// watchMask is what a watched directory reports: its names that come,
// go or change, and writes and attribute changes of the files in it and
// of itself.
const watchMask = unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_CREATE |
	unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

// watcher keeps the kernel's cache of the view coherent with the files
// beneath: every directory the kernel learns of through the view is
// watched with inotify on the host tree, and a change made there, by any
// process (another worker's view, a seccomp-gated worker, the host, this
// view itself), invalidates the names and attributes the kernel keeps
// for it at once. A Node under a watched directory may thus be kept for
// Config.WatchedTimeout, which only bounds what an invalidation misses.
type watcher struct {
	file *os.File // the inotify instance, non-blocking: Close ends run

	mu    sync.Mutex
	nodes map[int32]*Node // directory Node of each watch descriptor
	// own are the names this view is making (create, mkdir, mknod,
	// symlink, link: IN_CREATE) or removing (unlink, rmdir: IN_DELETE),
	// by directory inode: their event is no news to the kernel, which
	// changed what it keeps of the name and its directory itself, and
	// must not drop what it now keeps.
	own map[ownChange]int

	// worth is Config.Watches; nil means every directory.
	worth func(dir string) bool
	// limited is told of the first watch refused at a limit (refused).
	limited func(dir string, err error)
	once    sync.Once
}

// ownChange is an event this view expects on a name in the directory
// with inode number dir: IN_CREATE or IN_DELETE.
type ownChange struct {
	dir   uint64
	name  string
	event uint32
}

// newWatcher makes an inotify instance.
func newWatcher(worth func(string) bool, limited func(string, error)) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err == unix.EMFILE {
		// Both limits answer EMFILE; the per-user one is the likely one
		// (editors and dev servers hold many instances).
		return nil, fmt.Errorf("no inotify instance (fs.inotify.max_user_instances, sysctl, counts all of this user's processes; ulimit -n this one's descriptors): %w", err)
	}
	if err != nil {
		return nil, err
	}
	return &watcher{file: os.NewFile(uintptr(fd), "inotify"), nodes: map[int32]*Node{}, own: map[ownChange]int{},
		worth: worth, limited: limited}, nil
}

// worthy reports whether the directory at path is to be watched
// (Config.Watches).
func (w *watcher) worthy(path string) bool { return w.worth == nil || w.worth(path) }

// refused tells w.limited, once, that the watch of the directory at path
// was refused with err, when err is the kernel's limit of watches
// (ENOSPC: fs.inotify.max_user_watches). Other errors (the directory
// renamed or removed meanwhile) are no news.
func (w *watcher) refused(path string, err error) {
	if errors.Is(err, unix.ENOSPC) {
		w.once.Do(func() { w.limited(path, err) })
	}
}

// watch starts watching the directory at path, which the view knows as
// dir with inode number ino, and marks dir watched. It opens path without
// following a symlink and checks that it is still that inode (a rename
// outside could have put another there), so a watch never speaks for a
// directory it is not.
func (w *watcher) watch(dir *Node, path string, ino uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Ino != ino {
		return unix.ESTALE
	}
	wd, err := unix.InotifyAddWatch(int(w.file.Fd()), "/proc/self/fd/"+strconv.Itoa(fd), watchMask)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.nodes[int32(wd)] = dir
	w.mu.Unlock()
	dir.watched.Store(true)
	return nil
}

// watchRoot watches the view's root, the directory at path.
func (w *watcher) watchRoot(root *Node, path string) error {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return err
	}
	return w.watch(root, path, st.Ino)
}

// expect records that this view is about to make (IN_CREATE) or remove
// (IN_DELETE) name in dir, before it does; done says whether it did: a
// change not made brings no event.
func (w *watcher) expect(dir *Node, name string, event uint32) (done func(ok bool)) {
	k := ownChange{dir.StableAttr().Ino, name, event}
	w.mu.Lock()
	w.own[k]++
	w.mu.Unlock()
	return func(ok bool) {
		if !ok {
			w.mu.Lock()
			w.forget(k)
			w.mu.Unlock()
		}
	}
}

// forget drops one expected k; w.mu is held.
func (w *watcher) forget(k ownChange) {
	if w.own[k]--; w.own[k] <= 0 {
		delete(w.own, k)
	}
}

// run reads the instance's events and invalidates what they name until
// Close. Each read's events are applied once per name and Node.
func (w *watcher) run() {
	buf := make([]byte, 64<<10)
	for {
		n, err := w.file.Read(buf)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		w.invalidate(w.parse(buf[:n]))
	}
}

// Close ends run.
func (w *watcher) Close() error { return w.file.Close() }

// stale is what one batch of events makes stale.
type stale struct {
	entries map[*fs.Inode]map[string]bool // names to drop, by directory
	attrs   map[*fs.Inode]bool            // attributes (and a file's cached pages) to drop
	all     bool                          // the kernel dropped events: drop everything
}

// parse turns raw inotify events into what they make stale.
func (w *watcher) parse(buf []byte) stale {
	s := stale{entries: map[*fs.Inode]map[string]bool{}, attrs: map[*fs.Inode]bool{}}
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(buf) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		name := string(trimNUL(buf[unix.SizeofInotifyEvent:end]))
		buf = buf[end:]
		switch {
		case ev.Mask&unix.IN_Q_OVERFLOW != 0:
			s.all = true
		case ev.Mask&unix.IN_IGNORED != 0:
			if dir := w.nodes[ev.Wd]; dir != nil {
				dir.watched.Store(false)
			}
			delete(w.nodes, ev.Wd)
		default:
			dir := w.nodes[ev.Wd]
			if dir == nil {
				break
			}
			if k := (ownChange{dir.StableAttr().Ino, name, ev.Mask & (unix.IN_CREATE | unix.IN_DELETE)}); k.event != 0 && w.own[k] > 0 {
				w.forget(k)
				break
			}
			s.add(dir.EmbeddedInode(), ev.Mask, name)
		}
	}
	return s
}

// add records what one event on a watched directory makes stale: a name
// that came (the kernel may keep it as missing), went or was replaced,
// the attributes of what it names, and the directory's own attributes
// (its times and size change with its names).
func (s stale) add(dir *fs.Inode, mask uint32, name string) {
	if name == "" {
		s.attrs[dir] = true
		return
	}
	if mask&(unix.IN_CREATE|unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO) != 0 {
		if s.entries[dir] == nil {
			s.entries[dir] = map[string]bool{}
		}
		s.entries[dir][name] = true
	}
	if mask&(unix.IN_CREATE|unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO) != 0 {
		s.attrs[dir] = true
	}
	if mask&(unix.IN_MODIFY|unix.IN_ATTRIB) != 0 {
		if child := dir.GetChild(name); child != nil {
			s.attrs[child] = true
		}
	}
}

// invalidate tells the kernel what s makes stale. An entry's invalidation
// takes its directory's lock in the kernel, so it waits while this view
// holds a mutation there for an answer; Config.WatchedTimeout bounds
// what the kernel keeps meanwhile.
func (w *watcher) invalidate(s stale) {
	if s.all {
		w.invalidateAll()
		return
	}
	for ino := range s.attrs {
		invalidateAttrs(ino)
	}
	for dir, names := range s.entries {
		for name := range names {
			dir.NotifyEntry(name)
		}
	}
}

// invalidateAll drops every name and attribute kept under a watched
// directory: after an overflow the events that were lost are unknown.
func (w *watcher) invalidateAll() {
	w.mu.Lock()
	dirs := make([]*fs.Inode, 0, len(w.nodes))
	for _, n := range w.nodes {
		dirs = append(dirs, n.EmbeddedInode())
	}
	w.mu.Unlock()
	for _, dir := range dirs {
		invalidateAttrs(dir)
		for name, child := range dir.Children() {
			invalidateAttrs(child)
			dir.NotifyEntry(name)
		}
	}
}

// invalidateAttrs drops the attributes the kernel keeps of ino and, for a
// file, the pages it caches of its content.
func invalidateAttrs(ino *fs.Inode) {
	if ino.IsDir() {
		ino.NotifyContent(-1, 0)
		return
	}
	ino.NotifyContent(0, 0)
}

// trimNUL cuts an inotify name at its first NUL (names are padded).
func trimNUL(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}
