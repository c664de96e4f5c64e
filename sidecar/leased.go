package sidecar

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/leasegate/leasegate/gate"
)

// leased mirrors the paths every owner's active leases cover, from the
// coordinator's event stream. It keeps a change of the gating rule from
// releasing a held path: a path the rule now calls ignored or excluded
// (a worker added it to .git/info/exclude, or untracked it) is still gated
// while a lease covers it. It lags the coordinator by the event stream's
// latency; until it has seen a lease, the rule alone answers.
type leased struct {
	mu      sync.Mutex
	byID    map[gate.LeaseID]leasedScope
	files   map[string]int // exact paths, counted by lease
	trees   map[string]int // "dir" of "dir/**" patterns; "" for "**"
	globs   map[string]int // other patterns
	wholeWS int            // full-scope leases
	// inodes are the file identities leases record (gate.File), with the
	// workspace path each names: a write through a hard link outside the
	// workspace is gated as a write of that path.
	inodes  map[inode]inodeUse
	nInodes atomic.Int64 // len(inodes), read without mu on the hot path
}

// leasedScope is what one mirrored lease added.
type leasedScope struct {
	keys  []string
	files []gate.File
}

// inode is the identity two names of one file share.
type inode struct{ dev, ino uint64 }

// inodeUse is the path of a leased file identity and how many leases
// record it.
type inodeUse struct {
	path string
	n    int
}

// seedLeased fills the mirror before the worker starts, from the
// coordinator's status; the event stream follows from its sequence. If the
// status cannot be had, the stream replays the ledger from the start.
func (s *Sidecar) seedLeased(ctx context.Context) {
	st, err := s.cfg.Client.Status(ctx)
	if err != nil {
		s.log.Warn("active leases unknown until the event stream replays them", "error", err)
		return
	}
	s.leased.reset(st.Leases)
	s.leasedSeq = st.LastSeq
}

func newLeased() *leased {
	return &leased{byID: map[gate.LeaseID]leasedScope{}, files: map[string]int{}, trees: map[string]int{}, globs: map[string]int{}, inodes: map[inode]inodeUse{}}
}

// reset replaces the mirror with the active leases ls.
func (m *leased) reset(ls []gate.Lease) {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.byID)
	clear(m.files)
	clear(m.trees)
	clear(m.globs)
	clear(m.inodes)
	m.nInodes.Store(0)
	m.wholeWS = 0
	for _, l := range ls {
		m.addLocked(l)
	}
}

// apply follows one event: a grant adds its lease, any end removes it, a
// narrowing replaces it with what it keeps.
func (m *leased) apply(e gate.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case e.Type == gate.EventGranted:
		if e.Lease != nil {
			m.addLocked(*e.Lease)
		}
	case e.Type == gate.EventNarrowed:
		if e.Lease != nil {
			m.removeLocked(e.LeaseID)
			m.addLocked(*e.Lease)
		}
	case e.Type.EndsLease():
		m.removeLocked(e.LeaseID)
	}
}

func (m *leased) addLocked(l gate.Lease) {
	if l.State != gate.StateActive {
		return
	}
	if _, ok := m.byID[l.ID]; ok {
		return
	}
	sc := leasedScope{keys: scopeKeys(l.Scope), files: l.Scope.Files}
	m.byID[l.ID] = sc
	m.count(sc.keys, 1)
	for _, f := range sc.files {
		k := inode{f.Dev, f.Ino}
		u := m.inodes[k]
		m.inodes[k] = inodeUse{path: f.Path, n: u.n + 1}
	}
	m.nInodes.Store(int64(len(m.inodes)))
}

func (m *leased) removeLocked(id gate.LeaseID) {
	sc, ok := m.byID[id]
	if !ok {
		return
	}
	delete(m.byID, id)
	m.count(sc.keys, -1)
	for _, f := range sc.files {
		k := inode{f.Dev, f.Ino}
		if u := m.inodes[k]; u.n <= 1 {
			delete(m.inodes, k)
		} else {
			m.inodes[k] = inodeUse{path: u.path, n: u.n - 1}
		}
	}
	m.nInodes.Store(int64(len(m.inodes)))
}

// pathOf returns the workspace path of the file (dev, ino) when an active
// lease records it.
func (m *leased) pathOf(dev, ino uint64) (string, bool) {
	if m.nInodes.Load() == 0 {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.inodes[inode{dev, ino}]
	return u.path, ok
}

// scopeKeys encodes a scope's paths: "f:" exact, "t:" subtree, "g:" other
// glob, "w:" the whole workspace.
func scopeKeys(s gate.Scope) []string {
	if s.Type == gate.ScopeFull {
		return []string{"w:"}
	}
	keys := make([]string, 0, len(s.Paths))
	for _, p := range s.Paths {
		switch {
		case p == "**":
			keys = append(keys, "t:")
		case strings.HasSuffix(p, "/**") && !gate.IsGlob(strings.TrimSuffix(p, "/**")):
			keys = append(keys, "t:"+strings.TrimSuffix(p, "/**"))
		case gate.IsGlob(p):
			keys = append(keys, "g:"+p)
		default:
			keys = append(keys, "f:"+p)
		}
	}
	return keys
}

func (m *leased) count(keys []string, d int) {
	for _, k := range keys {
		var set map[string]int
		switch k[0] {
		case 'w':
			m.wholeWS += d
			continue
		case 't':
			set = m.trees
		case 'g':
			set = m.globs
		default:
			set = m.files
		}
		if set[k[2:]] += d; set[k[2:]] <= 0 {
			delete(set, k[2:])
		}
	}
}

// covers reports whether an active lease covers rel, a path as a pattern
// (gate.Literal), or, for a tree mutation, anything beneath rel.
func (m *leased) covers(rel string, tree bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.wholeWS > 0 || m.files[rel] > 0 || m.treeAbove(rel) {
		return true
	}
	for g := range m.globs {
		if (tree && gate.Overlap(g, gate.Subtree(gate.Unescape(rel)))) || (!tree && gate.Match(g, rel)) {
			return true
		}
	}
	if !tree {
		return false
	}
	for p := range m.files {
		if strings.HasPrefix(p, rel+"/") {
			return true
		}
	}
	for p := range m.trees {
		if strings.HasPrefix(p, rel+"/") {
			return true
		}
	}
	return false
}

// treeAbove reports whether a subtree lease covers rel: its directory is
// rel or above it.
func (m *leased) treeAbove(rel string) bool {
	if m.trees[""] > 0 {
		return true
	}
	for p := rel; ; {
		if m.trees[p] > 0 {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}
