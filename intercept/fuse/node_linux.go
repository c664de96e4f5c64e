//go:build amd64 || arm64

package fuse

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

// Node is a gated loopback node: every request that changes the tree is
// asked about first, and done by the embedded LoopbackNode only when the
// answer lets it; reads go straight to the LoopbackNode.
type Node struct {
	*fs.LoopbackNode
	asker *asker
	// watched is set while the directory is watched for changes made
	// beneath the view (watcher): what the kernel keeps of its names is
	// then invalidated when they change.
	watched atomic.Bool
	// skipped is set once Config.Watches said this directory is not
	// worth a watch, so that it is not asked again at each lookup.
	skipped atomic.Bool
}

// newRoot is the root Node of a view of dir.
func newRoot(dir string, a *asker) (*Node, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return nil, err
	}
	data := &fs.LoopbackRoot{Path: dir, Dev: uint64(st.Dev)}
	n := &Node{LoopbackNode: &fs.LoopbackNode{RootData: data}, asker: a}
	data.RootNode = n
	return n, nil
}

var _ = (fs.NodeWrapChilder)((*Node)(nil))

// WrapChild makes every node of the tree a gated one.
func (n *Node) WrapChild(ctx context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &Node{LoopbackNode: ops.(*fs.LoopbackNode), asker: n.asker}
}

// path is the host path of this node.
func (n *Node) path() string {
	return filepath.Join(n.asker.root, n.Path(nil))
}

// child is the host path of name in this directory.
func (n *Node) child(name string) string {
	return n.asker.under(n.Path(nil), name)
}

var _ = (fs.NodeCreater)((*Node)(nil))

// Create asks before an O_CREAT open of a name the kernel found missing.
func (n *Node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	if errno := n.asker.ask(ctx, intercept.OpCreate, "create", n.child(name)); errno != 0 {
		return nil, nil, 0, errno
	}
	done := n.expect(name, unix.IN_CREATE)
	ch, fh, fl, errno := n.LoopbackNode.Create(asOwnCaller(ctx), name, flags, mode, out)
	done(errno == 0)
	n.asAsked(name, mode, out, errno)
	n.keep(out, errno)
	return ch, fh, fl, errno
}

var _ = (fs.NodeOpener)((*Node)(nil))

// Open asks before an open for writing or with O_TRUNC; a read-only open
// is not asked about.
func (n *Node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if op, ok := openOp(flags); ok {
		if errno := n.asker.ask(ctx, op, "open", n.path()); errno != 0 {
			return nil, 0, errno
		}
	}
	return n.LoopbackNode.Open(ctx, flags)
}

// openOp is the mutation an open with flags makes, if any.
func openOp(flags uint32) (intercept.Op, bool) {
	switch {
	case flags&syscall.O_TRUNC != 0:
		return intercept.OpTruncate, true
	case flags&syscall.O_ACCMODE != syscall.O_RDONLY:
		return intercept.OpOpenWrite, true
	}
	return "", false
}

var _ = (fs.NodeSetattrer)((*Node)(nil))

// Setattr asks before a truncate, chmod, chown or utimes, by path or by
// an open file.
func (n *Node) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if op, ok := setattrOp(in); ok {
		if errno := n.asker.ask(ctx, op, "setattr", n.path()); errno != 0 {
			return errno
		}
	}
	errno := n.LoopbackNode.Setattr(ctx, f, in, out)
	if errno == 0 {
		n.asker.ids.show(&out.Attr)
	}
	if errno == 0 && n.covered() && out.Timeout() < n.asker.keepAttr {
		out.SetTimeout(n.asker.keepAttr)
	}
	return errno
}

// setattrOp is the mutation a SETATTR makes: the first of a size, a mode,
// an owner or a time it changes. One answer covers them all, since a lease
// is on the file, whatever is done to it.
func setattrOp(in *fuse.SetAttrIn) (intercept.Op, bool) {
	if _, ok := in.GetSize(); ok {
		return intercept.OpTruncate, true
	}
	if _, ok := in.GetMode(); ok {
		return intercept.OpChmod, true
	}
	_, uok := in.GetUID()
	_, gok := in.GetGID()
	if uok || gok {
		return intercept.OpChown, true
	}
	_, aok := in.GetATime()
	_, mok := in.GetMTime()
	if aok || mok {
		return intercept.OpUtimes, true
	}
	return "", false
}

var _ = (fs.NodeUnlinker)((*Node)(nil))

// Unlink asks before a name is removed.
func (n *Node) Unlink(ctx context.Context, name string) syscall.Errno {
	return n.remove(ctx, intercept.OpUnlink, "unlink", name, n.LoopbackNode.Unlink)
}

var _ = (fs.NodeRmdirer)((*Node)(nil))

// Rmdir asks before a directory is removed.
func (n *Node) Rmdir(ctx context.Context, name string) syscall.Errno {
	return n.remove(ctx, intercept.OpRmdir, "rmdir", name, n.LoopbackNode.Rmdir)
}

// remove asks for op (the call named call) of name, then removes it with
// do, telling the watch to expect the deletion it makes itself.
func (n *Node) remove(ctx context.Context, op intercept.Op, call, name string, do func(context.Context, string) syscall.Errno) syscall.Errno {
	if errno := n.asker.ask(ctx, op, call, n.child(name)); errno != 0 {
		return errno
	}
	done := n.expect(name, unix.IN_DELETE)
	errno := do(ctx, name)
	done(errno == 0)
	return errno
}

var _ = (fs.NodeMkdirer)((*Node)(nil))

// Mkdir asks before a directory is made.
func (n *Node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.asker.ask(ctx, intercept.OpMkdir, "mkdir", n.child(name)); errno != 0 {
		return nil, errno
	}
	done := n.expect(name, unix.IN_CREATE)
	ch, errno := n.LoopbackNode.Mkdir(asOwnCaller(ctx), name, mode, out)
	done(errno == 0)
	n.asAsked(name, mode, out, errno)
	n.keep(out, errno)
	n.watchChild(ch, name, errno)
	return ch, errno
}

var _ = (fs.NodeMknoder)((*Node)(nil))

// Mknod asks before a device, fifo or socket node is made.
func (n *Node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if errno := n.asker.ask(ctx, intercept.OpMknod, "mknod", n.child(name)); errno != 0 {
		return nil, errno
	}
	done := n.expect(name, unix.IN_CREATE)
	ch, errno := n.LoopbackNode.Mknod(asOwnCaller(ctx), name, mode, rdev, out)
	done(errno == 0)
	n.asAsked(name, mode, out, errno)
	n.keep(out, errno)
	return ch, errno
}

// asAsked gives name, which this directory's Create, Mkdir or Mknod just
// made (errno 0) with mode, the mode and group the worker's own call would
// have given it. The loopback makes it as the sidecar, whose umask
// narrows again the mode the kernel already narrowed by the worker's (a
// worker with umask 002 made files its group could not write in a
// group-shared checkout), and, as root, gives it the caller's group even
// in a set-group-ID directory, whose group a new name takes. A mode is
// widened only by bits the sidecar's umask took, and not where the
// directory has a default ACL, which decides the mode itself; out is
// refreshed to what is on disk.
func (n *Node) asAsked(name string, mode uint32, out *fuse.EntryOut, errno syscall.Errno) {
	if errno != 0 {
		return
	}
	p := n.child(name)
	var dir, st syscall.Stat_t
	if syscall.Stat(n.path(), &dir) != nil || syscall.Lstat(p, &st) != nil {
		return
	}
	want := mode & 0o7777
	if dir.Mode&syscall.S_ISGID != 0 {
		if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			want |= syscall.S_ISGID
		}
		if st.Gid != dir.Gid && unix.Fchownat(unix.AT_FDCWD, p, -1, int(dir.Gid), unix.AT_SYMLINK_NOFOLLOW) == nil {
			_ = syscall.Lstat(p, &st)
		}
	}
	have := st.Mode & 0o7777
	if have != want && have&^want == 0 && (want&^have)&^(n.asker.umask|syscall.S_ISGID) == 0 && !defaultACL(n.path()) &&
		syscall.Chmod(p, want) == nil {
		_ = syscall.Lstat(p, &st)
	}
	out.Attr.FromStat(&st)
}

// defaultACL reports whether dir has a default ACL (or whether that cannot
// be told), which gives new names their mode in place of the umask.
func defaultACL(dir string) bool {
	_, err := unix.Getxattr(dir, "system.posix_acl_default", nil)
	return err != unix.ENODATA && err != unix.EOPNOTSUPP
}

var _ = (fs.NodeRenamer)((*Node)(nil))

// Rename asks before a rename, with both names (RENAME_EXCHANGE swaps
// them: both change).
func (n *Node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	to := n.asker.under(newParent.EmbeddedInode().Path(nil), newName)
	if errno := n.asker.ask(ctx, intercept.OpRename, "rename", n.child(name), to); errno != 0 {
		return errno
	}
	return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
}

var _ = (fs.NodeLinker)((*Node)(nil))

// Link asks before a hard link, with the new name and the existing file.
func (n *Node) Link(ctx context.Context, target fs.InodeEmbedder, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	paths := []string{n.child(name)}
	if _, parent := target.EmbeddedInode().Parent(); parent != nil {
		paths = append(paths, filepath.Join(n.asker.root, target.EmbeddedInode().Path(nil)))
	}
	if errno := n.asker.ask(ctx, intercept.OpLink, "link", paths...); errno != 0 {
		return nil, errno
	}
	done := n.expect(name, unix.IN_CREATE)
	ch, errno := n.LoopbackNode.Link(ctx, target, name, out)
	done(errno == 0)
	n.keep(out, errno)
	return ch, errno
}

var _ = (fs.NodeSymlinker)((*Node)(nil))

// Symlink asks before a symlink is made, with the link and the file it
// names: its target made absolute against the link's directory, as the
// kernel will resolve it (in the worker's view the workspace is at the
// same path as on the host).
func (n *Node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	dir := n.path()
	named := target
	if !filepath.IsAbs(named) {
		named = filepath.Join(dir, named)
	}
	if errno := n.asker.ask(ctx, intercept.OpSymlink, "symlink", filepath.Join(dir, name), filepath.Clean(named)); errno != 0 {
		return nil, errno
	}
	done := n.expect(name, unix.IN_CREATE)
	ch, errno := n.LoopbackNode.Symlink(asOwnCaller(ctx), target, name, out)
	done(errno == 0)
	n.keep(out, errno)
	return ch, errno
}

var _ = (fs.NodeSetxattrer)((*Node)(nil))

// Setxattr asks before an extended attribute is set.
func (n *Node) Setxattr(ctx context.Context, attr string, data []byte, flags uint32) syscall.Errno {
	if errno := n.asker.ask(ctx, intercept.OpXattr, "setxattr", n.path()); errno != 0 {
		return errno
	}
	return n.LoopbackNode.Setxattr(ctx, attr, data, flags)
}

var _ = (fs.NodeRemovexattrer)((*Node)(nil))

// Removexattr asks before an extended attribute is removed.
func (n *Node) Removexattr(ctx context.Context, attr string) syscall.Errno {
	if errno := n.asker.ask(ctx, intercept.OpXattr, "removexattr", n.path()); errno != 0 {
		return errno
	}
	return n.LoopbackNode.Removexattr(ctx, attr)
}

var _ = (fs.NodeIoctler)((*Node)(nil))

// Ioctl asks before an ioctl that sets a file's attributes (chattr's
// FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR) and passes every ioctl to the open
// file, as the loopback does.
func (n *Node) Ioctl(ctx context.Context, f fs.FileHandle, cmd uint32, arg uint64, input, output []byte) (int32, syscall.Errno) {
	if setsAttributes(cmd) {
		if errno := n.asker.ask(ctx, intercept.OpSetFlags, "ioctl", n.path()); errno != 0 {
			return 0, errno
		}
	}
	fi, ok := f.(fs.FileIoctler)
	if !ok {
		return 0, syscall.ENOTTY
	}
	return fi.Ioctl(ctx, cmd, arg, input, output)
}

// The attribute-setting ioctls x/sys/unix does not name:
// FS_IOC_FSSETXATTR is _IOW('X', 32, struct fsxattr), FS_IOC32_SETFLAGS
// is _IOW('f', 2, int), the 32-bit form of FS_IOC_SETFLAGS.
const (
	fsIocFssetxattr = 0x401c5820
	fsIoc32Setflags = 0x40046602
)

// setsAttributes reports whether an ioctl sets a file's attributes.
func setsAttributes(cmd uint32) bool {
	switch cmd {
	case unix.FS_IOC_SETFLAGS, fsIoc32Setflags, fsIocFssetxattr:
		return true
	}
	return false
}

var _ = (fs.NodeLookuper)((*Node)(nil))

// Lookup is the loopback's, with the name and its attributes kept for
// Config.WatchedTimeout when this directory is watched, and a directory
// found watched in turn.
func (n *Node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	ch, errno := n.LoopbackNode.Lookup(ctx, name, out)
	n.keep(out, errno)
	n.watchChild(ch, name, errno)
	return ch, errno
}

// keep lets the kernel keep an entry of this directory that a request
// answered, when the directory is watched: a name, or a name found
// missing (the view's NegativeTimeout; its IN_CREATE drops it). In a
// directory not watched a missing name is not kept: the bridge keeps
// one only when the answer has no timeout of its own, and answers
// ENOENT, which the kernel keeps nothing of, when it has one.
func (n *Node) keep(out *fuse.EntryOut, errno syscall.Errno) {
	if errno == 0 {
		n.asker.ids.show(&out.Attr)
	}
	watched := n.watched.Load()
	if errno == syscall.ENOENT && !watched && n.asker.watcher != nil {
		out.SetEntryTimeout(time.Nanosecond)
	}
	if errno != 0 || !watched {
		return
	}
	if out.EntryTimeout() < n.asker.keepEntry {
		out.SetEntryTimeout(n.asker.keepEntry)
	}
	if out.AttrTimeout() < n.asker.keepAttr {
		out.SetAttrTimeout(n.asker.keepAttr)
	}
}

// expect tells the watcher that this view is about to make (IN_CREATE)
// or remove (IN_DELETE) name here; the returned func says whether it did.
func (n *Node) expect(name string, event uint32) func(ok bool) {
	if n.asker.watcher == nil || !n.watched.Load() {
		return func(bool) {}
	}
	return n.asker.watcher.expect(n, name, event)
}

// watchChild watches ch, this directory's child name, if it is a
// directory not watched yet (by its name here: a new child has no place
// in the tree until the request is answered), unless Config.Watches says
// it is not worth one. A directory that cannot be watched (the user's
// limit of watches reached, a rename outside meanwhile) is not kept; the
// first refused at the limit is said (Config.Unwatched).
func (n *Node) watchChild(ch *fs.Inode, name string, errno syscall.Errno) {
	w := n.asker.watcher
	if errno != 0 || w == nil || !ch.IsDir() {
		return
	}
	child, ok := ch.Operations().(*Node)
	if !ok || child.watched.Load() || child.skipped.Load() {
		return
	}
	path := n.child(name)
	if !w.worthy(path) {
		child.skipped.Store(true)
		return
	}
	if err := w.watch(child, path, ch.StableAttr().Ino); err != nil {
		w.refused(path, err)
	}
}

// covered reports whether the attributes of this node are kept coherent
// by a watch: its own (a directory) or its directory's.
func (n *Node) covered() bool {
	if n.watched.Load() {
		return true
	}
	_, parent := n.Parent()
	if parent == nil {
		return false
	}
	p, ok := parent.Operations().(*Node)
	return ok && p.watched.Load()
}

var _ = (fs.NodeGetattrer)((*Node)(nil))

// Getattr is the loopback's, with the attributes kept for
// Config.WatchedTimeout when a watch covers them.
func (n *Node) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	errno := n.LoopbackNode.Getattr(ctx, f, out)
	if errno == 0 {
		n.asker.ids.show(&out.Attr)
	}
	if errno == 0 && out.Timeout() < n.asker.keepAttr && n.covered() {
		out.SetTimeout(n.asker.keepAttr)
	}
	return errno
}

var _ = (fs.NodeFlusher)((*Node)(nil))

// Flush answers ENOSYS, which tells the kernel to send no FLUSH again: a
// close then costs no round trip to the sidecar. The loopback's flush
// only closed a duplicate of the file's fd, which reports delayed write
// errors on file systems that defer them (NFS), not on a local disk; the
// file itself is closed at RELEASE, which the kernel sends without making
// close wait for it.
func (n *Node) Flush(ctx context.Context, f fs.FileHandle) syscall.Errno {
	return syscall.ENOSYS
}
