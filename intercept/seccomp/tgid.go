//go:build linux && (amd64 || arm64)

package seccomp

import (
	"sync"
	"time"

	"github.com/leasegate/leasegate/intercept/procfs"
)

// maxTgids bounds the tgid cache; when full it starts over.
const maxTgids = 4096

// tgidCache maps thread ids to process ids (thread group ids).
//
// notif.pid is a thread id, and the way to its process is the Tgid line of
// /proc/<tid>/status, which costs about 25 µs to generate: more than all
// the rest of a notification's reading. Most notifying threads are their
// process's main thread, whose tid is the tgid; that, and a remembered
// answer for other threads, is checked instead with tgkill(tgid, tid, 0),
// which succeeds only while that thread belongs to that process, so a
// recycled thread id is never given a stale process. An answer checked
// within lookupTTL is trusted without even that: the kernel hands thread
// ids out in order up to pid_max before it wraps around, so none comes
// back that soon.
type tgidCache struct {
	now func() time.Duration // monotonic time; nil means monotonic()

	mu sync.Mutex
	m  map[int]remembered[int]
}

// lookup returns the process id of thread tid.
func (c *tgidCache) lookup(tid int) (int, error) {
	now := monotonic()
	if c.now != nil {
		now = c.now()
	}
	c.mu.Lock()
	e, ok := c.m[tid]
	c.mu.Unlock()
	switch {
	case ok && now-e.at < lookupTTL:
		return e.v, nil
	case ok && procfs.InProcess(tid, e.v):
		c.remember(tid, e.v, now)
		return e.v, nil
	case procfs.InProcess(tid, tid):
		c.remember(tid, tid, now)
		return tid, nil
	}
	tgid, err := procfs.Tgid(tid)
	if err != nil {
		return 0, err
	}
	c.remember(tid, tgid, now)
	return tgid, nil
}

// remember notes that thread tid was found in process tgid at now.
func (c *tgidCache) remember(tid, tgid int, now time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxTgids {
		c.m = make(map[int]remembered[int])
	}
	c.m[tid] = remembered[int]{v: tgid, at: now}
}
