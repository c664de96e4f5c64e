//go:build linux && (amd64 || arm64)

package seccomp

import (
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leasegate/leasegate/intercept"
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
// forgets what it may change (a chdir the working directories, the others
// everything), and nothing it may change is remembered from then until
// the change has surely happened: the changing thread's next notification
// (it is then past the syscall), or lookupTTL after the answer that let it
// run (a thread that makes no other notified syscall). A chdir moves only
// its own process's working directory, so other processes' are still
// remembered meanwhile. (A process that shares its working directory with
// another through clone(CLONE_FS) without being one of its threads is the
// exception this misses; nothing common does that.)
// A change made from outside the tree (another worker, an editor) is
// noticed when the remembered answer expires: for at most lookupTTL a
// path may be resolved as it was. That widens the race any check has
// with the syscall it lets run (DESIGN.md §6, "seccomp is not a security
// boundary") from microseconds to lookupTTL, and only for a directory
// swapped for a symlink, or renamed, behind the worker's back.
//
// The zero value is ready to use.
type lookups struct {
	now func() time.Duration // monotonic time; nil means monotonic()

	// nUnsettled is len(unsettled), read without the lock by the calls
	// made for every notification.
	nUnsettled atomic.Int32
	// changes counts unsettle calls: an answer looked up while one came
	// in may predate the change and is not remembered.
	changes atomic.Uint64

	mu sync.Mutex
	// unsettled holds, for each thread whose syscall may be changing how
	// paths resolve, the change under way.
	unsettled map[int]change
	cwds      map[int]remembered[string]  // tid → working directory
	dirs      map[string]remembered[bool] // directories found symlink-free
}

// change is a syscall that may be changing how paths resolve.
type change struct {
	// until is when the change has surely happened; unanswered while the
	// syscall waits for its answer.
	until time.Duration
	// cwdOf is, for a chdir, the process whose working directory moves;
	// 0 for a change that may move any path.
	cwdOf int
}

// unanswered is the until of a change whose syscall was not let run yet.
const unanswered = time.Duration(math.MaxInt64)

// moves reports whether c may change a lookup: a working directory of
// process tgid, or, for tgid 0, a directory.
func (c change) moves(tgid int) bool { return c.cwdOf == 0 || c.cwdOf == tgid }

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

// unsettle is called for a notified syscall of thread tid that may change
// how paths resolve, before it is let run. For a chdir, cwdOf is the
// thread's process and the working directories are forgotten; otherwise
// cwdOf is 0 and every remembered lookup is. Nothing the change may move
// is remembered until it has surely happened (see answered and seen).
func (l *lookups) unsettle(tid, cwdOf int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.cwds)
	if cwdOf == 0 {
		clear(l.dirs)
	}
	if l.unsettled == nil {
		l.unsettled = make(map[int]change)
	}
	l.unsettled[tid] = change{until: unanswered, cwdOf: cwdOf}
	l.nUnsettled.Store(int32(len(l.unsettled)))
	l.changes.Add(1)
}

// answered is called once thread tid's notification was answered, whether
// or not the answer let the syscall run: an unsettling syscall of tid has
// happened (or never will) within lookupTTL, however long it waited for
// its answer.
func (l *lookups) answered(tid int) {
	if l.nUnsettled.Load() == 0 {
		return
	}
	now := l.clock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.unsettled[tid]; ok {
		c.until = now + lookupTTL
		l.unsettled[tid] = c
	}
}

// seen is called for each notification, before anything is looked up for
// it: thread tid is in a new syscall, so the one before it, if it
// unsettled the lookups, has finished.
func (l *lookups) seen(tid int) {
	if l.nUnsettled.Load() == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.unsettled, tid)
	l.nUnsettled.Store(int32(len(l.unsettled)))
}

// quiet reports whether a change that may move a lookup for process tgid
// (0: of a directory) may still be under way at now, and drops the changes
// that surely happened. l.mu is held.
func (l *lookups) quiet(now time.Duration, tgid int) bool {
	quiet := false
	for tid, c := range l.unsettled {
		switch {
		case now >= c.until:
			delete(l.unsettled, tid)
		case c.moves(tgid):
			quiet = true
		}
	}
	l.nUnsettled.Store(int32(len(l.unsettled)))
	return quiet
}

// cwd returns the working directory of thread tid of process tgid,
// remembered or read with read. Only an absolute directory that still has
// its name is remembered.
func (l *lookups) cwd(tid, tgid int, read func() (string, error)) (string, error) {
	if dir, ok := get(l, &l.cwds, tid); ok {
		return dir, nil
	}
	before := l.changes.Load()
	dir, err := read()
	if err == nil && tgid > 0 && strings.HasPrefix(dir, "/") && !strings.HasSuffix(dir, deletedSuffix) {
		put(l, &l.cwds, tid, dir, tgid, before)
	}
	return dir, err
}

// symlinkFree reports whether dir is a directory that the kernel reaches
// without following a symlink; only a yes is remembered.
func (l *lookups) symlinkFree(dir string) bool {
	if _, ok := get(l, &l.dirs, dir); ok {
		return true
	}
	before := l.changes.Load()
	if !symlinkFree(dir) {
		return false
	}
	put(l, &l.dirs, dir, true, 0, before)
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

// put remembers v, an answer about process tgid's working directory or
// (tgid 0) about a directory, for key in *m, unless a change that may move
// it is under way, or any change began after it was looked up (changes
// was then before).
func put[K comparable, V any](l *lookups, m *map[K]remembered[V], key K, v V, tgid int, before uint64) {
	now := l.clock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changes.Load() != before || l.nUnsettled.Load() != 0 && l.quiet(now, tgid) {
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
const opChdir intercept.Op = "chdir"

// movesLookups reports whether a syscall of kind op can change how a
// path resolves: a new working directory, a directory moved or removed
// (and perhaps a symlink put in its place), a new symlink.
func movesLookups(op intercept.Op) bool {
	switch op {
	case intercept.OpRename, intercept.OpRmdir, intercept.OpSymlink, opChdir:
		return true
	}
	return false
}
