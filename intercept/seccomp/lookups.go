//go:build linux && (amd64 || arm64)

package seccomp

import (
	"strings"
	"sync"
	"time"
)

// lookupTTL is how long a remembered lookup is trusted (see lookups).
const lookupTTL = 100 * time.Millisecond

// maxLookups bounds each map of remembered lookups; a full one starts over.
const maxLookups = 4096

// epoch is the origin of monotonic; time.Since reads the monotonic clock,
// so a wall-clock jump moves nothing.
var epoch = time.Now()

// monotonic is the time since the process started.
func monotonic() time.Duration { return time.Since(epoch) }

// lookups remembers, for lookupTTL, the two answers about the file system
// that cost the most per notification after the round trip itself: a
// thread's working directory (a readlink of /proc/<tid>/cwd, about 2 µs on
// this machine kind) and that a directory is reached without following a
// symlink (an openat2, about 1.3 µs). A bulk writer (git clone, a build, a
// generator) asks the same few questions thousands of times a second.
//
// What the gated tree itself does to change an answer is seen before it
// happens: chdir and fchdir are notified for this alone, and a rename, a
// directory removal and a new symlink are notified anyway. Each of them
// forgets every remembered directory and stops the remembering for
// lookupTTL, since the change only takes effect after the answer lets the
// syscall run. A change made from outside the tree (another worker, an
// editor) is noticed when the remembered answer expires: for at most
// lookupTTL a path may be resolved as it was. That widens the race any
// check has with the syscall it lets run (DESIGN.md §6, "seccomp is not a
// security boundary") from microseconds to lookupTTL, and only for a
// directory swapped for a symlink, or renamed, behind the worker's back.
//
// The zero value is ready to use.
type lookups struct {
	now func() time.Duration // monotonic time; nil means monotonic()

	mu sync.Mutex
	// quietUntil is when remembering resumes after a change was seen.
	quietUntil time.Duration
	cwds       map[int]remembered[string]  // tid → working directory
	dirs       map[string]remembered[bool] // directories found symlink-free
}

// remembered is one answer and when it was looked up.
type remembered[T any] struct {
	v  T
	at time.Duration
}

func (l *lookups) clock() time.Duration {
	if l.now != nil {
		return l.now()
	}
	return monotonic()
}

// unsettle is called for a notified syscall that may change how paths
// resolve, before it is let run: every remembered directory and working
// directory is forgotten, and nothing is remembered for lookupTTL.
func (l *lookups) unsettle() {
	now := l.clock()
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.cwds)
	clear(l.dirs)
	l.quietUntil = now + lookupTTL
}

// cwd returns thread tid's working directory, remembered or read with
// read. Only an absolute directory that still has its name is remembered.
func (l *lookups) cwd(tid int, read func() (string, error)) (string, error) {
	if dir, ok := get(l, &l.cwds, tid); ok {
		return dir, nil
	}
	dir, err := read()
	if err == nil && strings.HasPrefix(dir, "/") && !strings.HasSuffix(dir, deletedSuffix) {
		put(l, &l.cwds, tid, dir)
	}
	return dir, err
}

// symlinkFree reports whether dir is a directory that the kernel reaches
// without following a symlink; only a yes is remembered.
func (l *lookups) symlinkFree(dir string) bool {
	if _, ok := get(l, &l.dirs, dir); ok {
		return true
	}
	if !symlinkFree(dir) {
		return false
	}
	put(l, &l.dirs, dir, true)
	return true
}

// get returns the answer remembered in *m for key if it is younger than
// lookupTTL.
func get[K comparable, V any](l *lookups, m *map[K]remembered[V], key K) (V, bool) {
	now := l.clock()
	l.mu.Lock()
	e, ok := (*m)[key]
	l.mu.Unlock()
	if !ok || now-e.at >= lookupTTL {
		var zero V
		return zero, false
	}
	return e.v, true
}

// put remembers v for key in *m, unless a change was seen within
// lookupTTL.
func put[K comparable, V any](l *lookups, m *map[K]remembered[V], key K, v V) {
	now := l.clock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now < l.quietUntil {
		return
	}
	if *m == nil || len(*m) >= maxLookups {
		*m = make(map[K]remembered[V])
	}
	(*m)[key] = remembered[V]{v: v, at: now}
}

// opChdir is what chdir and fchdir ask for. They change no file and are
// never a Mutation: they are notified so that lookups forgets the working
// directories it remembers before one changes.
const opChdir Op = "chdir"

// movesLookups reports whether a syscall of this kind can change how a
// path resolves: a new working directory, a directory moved or removed
// (and perhaps a symlink put in its place), a new symlink.
func (op Op) movesLookups() bool {
	switch op {
	case OpRename, OpRmdir, OpSymlink, opChdir:
		return true
	}
	return false
}
