package coordinator

import (
	"time"

	"github.com/leasegate/leasegate/gate"
)

// recentEnds remembers the paths of leases that ended within ungatedGrace
// (and paths just reported as ungated), so that a change the watcher sees
// right after a release is not taken for an ungated write. A second set
// holds the paths written under their writer's own check-out, which the
// watcher takes for gated writes the same way. Entries expire
// in the order they came, so each new one drops the expired ones in front
// of it: the set holds ungatedGrace's worth of releases, not every path
// ever released, and a lookup is a map read plus a scan of the globs.
// Paths are compared under the workspace's folding: the watcher names a
// file as the disk spells it, which on a volume that folds case need not
// be the spelling its lease was granted with.
type recentEnds struct {
	fold  gate.Folding
	exact map[string]time.Time // by the path's key under fold
	globs map[string]time.Time
	order []endedPath // oldest first, from head
	head  int
}

type endedPath struct {
	path string
	at   time.Time
}

func newRecentEnds(f gate.Folding) *recentEnds {
	return &recentEnds{fold: f, exact: make(map[string]time.Time), globs: make(map[string]time.Time)}
}

// note remembers that path ended (or was reported) at now.
func (r *recentEnds) note(path string, now time.Time) {
	r.prune(now)
	if gate.IsGlob(path) {
		r.globs[path] = now
	} else {
		r.exact[r.fold.Key(path)] = now
	}
	r.order = append(r.order, endedPath{path, now})
}

// covers reports whether path, or a glob matching it, ended within
// ungatedGrace of now.
func (r *recentEnds) covers(path string, now time.Time) bool {
	r.prune(now)
	if at, ok := r.exact[r.fold.Key(path)]; ok && now.Sub(at) <= ungatedGrace {
		return true
	}
	for g, at := range r.globs {
		if now.Sub(at) <= ungatedGrace && r.fold.Match(g, path) {
			return true
		}
	}
	return false
}

// prune forgets the entries older than ungatedGrace.
func (r *recentEnds) prune(now time.Time) {
	for r.head < len(r.order) && now.Sub(r.order[r.head].at) > ungatedGrace {
		e := r.order[r.head]
		r.order[r.head] = endedPath{}
		r.head++
		r.forget(e)
	}
	if r.head > 1024 && r.head*2 > len(r.order) {
		r.order = append([]endedPath(nil), r.order[r.head:]...)
		r.head = 0
	}
}

// forget drops e's path unless it was noted again since.
func (r *recentEnds) forget(e endedPath) {
	m, k := r.exact, r.fold.Key(e.path)
	if gate.IsGlob(e.path) {
		m, k = r.globs, e.path
	}
	if at, ok := m[k]; ok && at.Equal(e.at) {
		delete(m, k)
	}
}
