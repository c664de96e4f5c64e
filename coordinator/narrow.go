package coordinator

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// MaxNarrowEntries bounds the directory entries one narrowing lists (all
// the directories it splits together). A narrowing runs under the
// coordinator's lock and its event carries every entry as a path of the
// creator's lease: at this bound it holds every other decision about 2 ms
// (BenchmarkNewDirNarrowing), within the coordinator's 5 ms p99; past it
// the creator keeps its whole subtree and the write beneath it waits as
// any contended write does.
const MaxNarrowEntries = 1024

// newDirReason is the reason a lease.narrowed event gives.
const newDirReason = "new directory shared"

// takesNewDir reports whether a mutation takes the subtree of a directory
// its owner is creating: a sidecar's Try of a mkdir, of the one path
// "dir/**" (sidecar.takeSubtree). Such a lease is marked (gate.Lease.NewDir)
// so that another owner's write of a new name beneath it narrows it. An
// explicit acquire of "dir/**" and a check-out are not marked.
func takesNewDir(mr leasegate.MutateRequest) bool {
	return mr.Try && mr.Op == "mkdir" && len(mr.Paths) == 1 && strings.HasSuffix(mr.Paths[0], "/**")
}

// markNewDir marks the grants among evs as taken on a new directory.
func markNewDir(evs []gate.Event) {
	for i := range evs {
		if evs[i].Type == gate.EventGranted {
			evs[i].Lease.NewDir = true
		}
	}
}

// narrowNewDirs narrows the leases in the way of an auto acquire when every
// one of them was taken on a new directory and what req asks for does not
// exist beneath it: each keeps its directory and every entry there now,
// and no longer covers req's paths. It commits the narrowings (one
// lease.narrowed event each) and returns when they are durable, or nil
// when it narrowed nothing: then the leases are as they were. Call with
// c.mu held.
func (c *Coordinator) narrowNewDirs(req gate.Request, d gate.Decision, now time.Time) (<-chan error, error) {
	evs := c.narrowings(req, d.Conflicts, now)
	if evs == nil {
		return nil, nil
	}
	for _, e := range evs {
		if l, ok := c.table.Lease(e.LeaseID); ok {
			for _, p := range l.Scope.Paths {
				c.ended.note(p, now) // the creator's writes in flight are not ungated
			}
		}
	}
	done, err := c.commit(evs)
	if err != nil {
		return nil, err
	}
	for _, e := range evs {
		c.log.Info("new directory narrowed", "lease", e.LeaseID, "holder", e.Lease.Owner.Name, "requester", e.Actor, "path", e.Path, "paths", len(e.Lease.Scope.Paths))
	}
	return done, nil
}

// narrowings returns the lease.narrowed events that free req's paths from
// the leases conflicts, or nil when one of them cannot be narrowed so:
// a lease not taken on a new directory (or a check-out), of an owner
// another machine's coordinator judges (its directory is in that
// machine's checkout), a path of req that exists or that no subtree of
// the lease holds strictly beneath it, more than MaxNarrowEntries to
// list, or a lease left with more than gate.MaxPaths paths.
func (c *Coordinator) narrowings(req gate.Request, conflicts []gate.Lease, now time.Time) []gate.Event {
	if req.Kind != gate.KindAuto || c.cfg.Workspace == "" || len(conflicts) == 0 {
		return nil
	}
	evs := make([]gate.Event, 0, len(conflicts))
	for _, l := range conflicts {
		if !l.NewDir || l.Kind != gate.KindAuto || !c.judgedHere(l.Owner.Name) {
			return nil
		}
		paths, asked, ok := c.narrowed(l.Scope.Paths, req.Scope)
		if !ok || len(paths) > gate.MaxPaths {
			return nil // narrowed again and again, a lease would outgrow what one request may name
		}
		nl := l
		nl.Scope = gate.Scope{Type: gate.ScopeTypeOf(paths), Paths: paths}
		evs = append(evs, gate.Event{Type: gate.EventNarrowed, At: now, LeaseID: l.ID, Lease: &nl,
			Actor: req.Owner.Name, Path: asked, Reason: newDirReason})
	}
	return evs
}

// narrowed returns the paths a lease holding scope keeps once the paths of
// want that it overlaps are split off, and the first of those; false when
// one of them cannot be (see narrowings).
func (c *Coordinator) narrowed(scope []string, want gate.Scope) ([]string, string, bool) {
	fold := c.cfg.Folding
	asked := ""
	budget := MaxNarrowEntries
	for _, p := range want.Paths {
		if !fold.Overlaps(gate.Scope{Type: gate.ScopeSparse, Paths: scope}, p) {
			continue
		}
		name, ok := newName(p)
		if _, has := want.FileOf(p); has || !ok {
			return nil, "", false
		}
		if scope, ok = c.split(scope, name, &budget); !ok {
			return nil, "", false
		}
		if asked == "" {
			asked = p
		}
	}
	kept := gate.Scope{Type: gate.ScopeSparse, Paths: scope}
	for _, p := range want.Paths {
		if fold.Overlaps(kept, p) {
			return nil, "", false
		}
	}
	return scope, asked, asked != ""
}

// newName is the name a path of a request makes: the path itself, or the
// directory of a subtree "dir/**"; false for any other glob.
func newName(p string) (string, bool) {
	if dir, ok := strings.CutSuffix(p, "/**"); ok && !gate.IsGlob(dir) {
		return gate.Unescape(dir), true
	}
	return gate.Unescape(p), !gate.IsGlob(p)
}

// split replaces the subtree of scope that holds name strictly beneath
// its directory with that directory and the entries along the way to
// name: each directory from the subtree's down to the deepest one name
// lies in, and every other entry of theirs (a directory as its subtree,
// anything else as itself). name must not exist. budget is what is left
// of MaxNarrowEntries.
func (c *Coordinator) split(scope []string, name string, budget *int) ([]string, bool) {
	fold := c.cfg.Folding
	for i, g := range scope {
		top, ok := strings.CutSuffix(g, "/**")
		if !ok || gate.IsGlob(top) {
			continue
		}
		top = gate.Unescape(top)
		rest, beneath := cutDir(top, name, fold)
		if !beneath {
			continue
		}
		if _, err := os.Lstat(filepath.Join(c.cfg.Workspace, filepath.FromSlash(name))); !errors.Is(err, fs.ErrNotExist) {
			return nil, false
		}
		kept, ok := c.listAlong(top, rest, budget)
		if !ok {
			return nil, false
		}
		slices.Sort(kept) // directory order is the file system's: the event reads better sorted
		out := append(append(append(make([]string, 0, len(scope)+len(kept)), scope[:i]...), kept...), scope[i+1:]...)
		return out, true
	}
	return nil, false
}

// cutDir returns the names of p beneath dir ("a/b" for dir "x", p "x/a/b"),
// each name compared under fold; false unless p lies strictly beneath dir.
func cutDir(dir, p string, fold gate.Folding) (string, bool) {
	for {
		sd, rd, moreD := strings.Cut(dir, "/")
		sp, rp, moreP := strings.Cut(p, "/")
		switch {
		case !fold.Equal(sd, sp) || !moreP:
			return "", false
		case !moreD:
			return rp, true
		}
		dir, p = rd, rp
	}
}

// listAlong lists dir and, while the next name of rest is a directory
// there, that directory in turn: the patterns of what exists along the
// way, the next name left out of each. A name on the way that is not a
// directory (a symlink, a file) cannot hold a new name beneath it: false.
func (c *Coordinator) listAlong(dir, rest string, budget *int) ([]string, bool) {
	out := []string{gate.Literal(dir)}
	for {
		next, after, more := strings.Cut(rest, "/")
		entries, ok := readDirUpTo(filepath.Join(c.cfg.Workspace, filepath.FromSlash(dir)), budget)
		if !ok {
			return nil, false
		}
		var down fs.DirEntry
		for _, e := range entries {
			full := dir + "/" + e.Name()
			switch {
			case c.cfg.Folding.Equal(e.Name(), next):
				down = e
			case e.IsDir():
				out = append(out, gate.Subtree(full))
			default:
				out = append(out, gate.Literal(full))
			}
		}
		if down == nil {
			return out, true
		}
		if !more || !down.IsDir() {
			return nil, false // the name exists after all, or lies beneath a non-directory
		}
		dir, rest = dir+"/"+down.Name(), after
		out = append(out, gate.Literal(dir))
	}
}

// readDirUpTo reads the entries of dir, taking them from *budget; false
// when there are more than it has left or dir cannot be read.
func readDirUpTo(dir string, budget *int) ([]fs.DirEntry, bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	entries, err := f.ReadDir(*budget + 1)
	if err != nil && !errors.Is(err, io.EOF) || len(entries) > *budget {
		return nil, false
	}
	*budget -= len(entries)
	return entries, true
}
