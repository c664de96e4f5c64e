//go:build linux && (amd64 || arm64)

package seccomp

import (
	"errors"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

// snapshot is everything read from /proc/<tid> about one notified syscall.
// It is taken before the notification is re-validated, and nothing else is
// read from the tracee afterwards.
type snapshot struct {
	pid, tid   int
	lookups    *lookups
	names      []rawName
	linkTarget string // symlink contents, for OpSymlink
}

// rawName is a nameArg with its strings read from the tracee.
type rawName struct {
	nameArg
	path string // the path argument; "" when the fd itself is the file
	// base is where the lookup starts (the dirfd's or cwd's link), or the
	// fd's own link for fd-only names; "" for absolute paths.
	base string
}

// snapshot reads the process id, the path arguments and the directories
// they are relative to.
func (t *tracee) snapshot(req request) (snapshot, error) {
	pid, err := t.tgid()
	if err != nil {
		return snapshot{}, err
	}
	t.pid = pid
	s := snapshot{pid: pid, tid: t.tid, lookups: t.lookups}
	for _, n := range req.names {
		r, err := t.readName(n)
		if err != nil {
			return snapshot{}, err
		}
		s.names = append(s.names, r)
	}
	if req.linkTarget != 0 {
		s.linkTarget, err = t.readString(req.linkTarget)
		if err == nil && s.linkTarget == "" {
			err = unix.ENOENT
		}
	}
	return s, err
}

// readName reads one path argument and, unless it is absolute, the link of
// the directory it is relative to.
func (t *tracee) readName(n nameArg) (rawName, error) {
	r := rawName{nameArg: n}
	if !n.fdOnly {
		p, err := t.readString(n.addr)
		switch {
		case err != nil:
			return r, err
		case p == "" && !n.emptyOK:
			return r, unix.ENOENT
		case p == "":
			r.fdOnly = true
		case strings.HasPrefix(p, "/") && !n.inRoot:
			r.path = p
			return r, nil
		}
		r.path = p
	}
	var err error
	r.base, err = t.fdLink(n.dirfd)
	return r, err
}

// mutation resolves the snapshot's names on the file system into the
// Mutation of syscall.
func (s snapshot) mutation(syscall string, req request) (intercept.Mutation, error) {
	paths, first, err := s.paths()
	if err != nil {
		return intercept.Mutation{}, err
	}
	op := req.op
	if req.open != nil {
		if first == nil {
			k := lstatKind(paths[0])
			first = &k
		}
		op, err = openOp(req, *first)
	}
	return intercept.Mutation{PID: s.pid, TID: s.tid, Op: op, Syscall: syscall, Paths: paths}, err
}

// paths resolves the names, and a symlink's target relative to the link's
// directory. Names without a file name are left out; if none is left, the
// syscall changes no path. first is what resolving paths[0] found out
// about its file, if it looked.
func (s snapshot) paths() (paths []string, first *fileKind, err error) {
	paths = make([]string, 0, len(s.names)+1)
	for _, r := range s.names {
		w := walker{pid: s.pid, tid: s.tid, lookups: s.lookups}
		p, err := s.resolveName(&w, r)
		if errors.Is(err, errUnnamed) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if len(paths) == 0 && w.finalKnown {
			first = &w.final
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return nil, nil, errNoMutation
	}
	if s.linkTarget != "" {
		paths = append(paths, s.symlinkTarget(filepath.Dir(paths[0])))
	}
	return paths, first, nil
}

// symlinkTarget is the file a new symlink in dir will name. The kernel does
// not look the target up when it creates the link, so a target that cannot
// be resolved (a loop) is reported as written, made absolute.
func (s snapshot) symlinkTarget(dir string) string {
	w := walker{pid: s.pid, tid: s.tid, lookups: s.lookups}
	target, err := w.resolve("/", dir, s.linkTarget, true)
	switch {
	case err == nil:
		return target
	case filepath.IsAbs(s.linkTarget):
		return filepath.Clean(s.linkTarget)
	}
	return filepath.Join(dir, s.linkTarget)
}

// firstPath is the first name's path argument as the tracee wrote it.
func (s snapshot) firstPath() string {
	if len(s.names) == 0 {
		return ""
	}
	return s.names[0].path
}

// fileKind is what an lstat found at a path.
type fileKind struct {
	exists  bool
	regular bool
}

// lstatKind describes the file at p; a path that cannot be looked up is
// taken as missing.
func lstatKind(p string) fileKind {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return fileKind{}
	}
	return fileKind{exists: true, regular: st.Mode&unix.S_IFMT == unix.S_IFREG}
}

// resolveName resolves one name to the file it affects.
func (s snapshot) resolveName(w *walker, r rawName) (string, error) {
	if r.fdOnly {
		return w.fdTarget(r.base, r.dirfd)
	}
	if r.base != "" && !strings.HasPrefix(r.base, "/") {
		return "", unix.ENOTDIR // dirfd is a pipe, socket, ...
	}
	if r.base != "" && isDeleted(r.base) {
		return "", unix.ENOENT // the directory was removed
	}
	root := "/"
	if r.inRoot {
		root = r.base
	}
	return w.resolve(root, r.base, r.path, r.follow)
}
