package coordinator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// mustFiles makes each path beneath ws: a directory when it ends in "/",
// else an empty file.
func mustFiles(t *testing.T, ws string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		full := filepath.Join(ws, filepath.FromSlash(p))
		if p[len(p)-1] == '/' {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newDir asks for the subtree of a directory owner is creating, as a
// sidecar's mkdir does (a Try), and returns the answer.
func (e *env) newDir(owner, dir string) leasegate.Result {
	e.t.Helper()
	r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: owner, Op: "mkdir", Paths: []string{gate.Subtree(dir)}, Try: true})
	if err != nil {
		e.t.Fatalf("Mutate(%s, mkdir %s, try) = %v", owner, dir, err)
	}
	return r
}

// TestNewDirNarrowsForANewName: bob's new directory and file beneath
// alice's new directory are granted, alice keeps the directory and every
// entry it holds, one lease.narrowed event says so, and a restart replays
// to the same table.
func TestNewDirNarrowsForANewName(t *testing.T) {
	ws := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Workspace = ws })
		own := e.newDir("alice", "own")
		if own.Outcome != leasegate.Granted || !own.Leases[0].NewDir {
			t.Fatalf("alice's mkdir own = %s %+v, want granted, marked new_dir", own.Outcome, own.Leases)
		}
		mustFiles(t, ws, "own/a/f", "own/x.txt", "own/[id]/")

		if r := e.newDir("bob", "own/b"); r.Outcome != leasegate.Granted {
			t.Fatalf("bob's mkdir own/b = %s %s, want granted", r.Outcome, r.Message)
		}
		want := []string{"own", "own/\\[id]/**", "own/a/**", "own/x.txt"}
		if got := e.held("alice", gate.KindAuto); !reflect.DeepEqual(got, want) {
			t.Errorf("alice holds %q, want %q", got, want)
		}
		if l := e.lease(own.Leases[0].ID); !l.NewDir || l.FencingToken != own.Leases[0].FencingToken {
			t.Errorf("alice's narrowed lease = %+v, want its token %d and new_dir kept", l, own.Leases[0].FencingToken)
		}
		evs := e.events(gate.EventNarrowed)
		if len(evs) != 1 || evs[0].LeaseID != own.Leases[0].ID || evs[0].Actor != "bob" || evs[0].Path != "own/b/**" {
			t.Fatalf("lease.narrowed events = %+v, want one of alice's lease by bob for own/b/**", evs)
		}
		e.register("carol")
		if r := e.mutate("carol", "own/c.md"); r.Outcome != leasegate.Granted {
			t.Errorf("carol's write of own/c.md = %s, want granted", r.Outcome)
		}
		for _, p := range []string{"own/a/f", "own/x.txt"} {
			if r := e.mutate("bob", p); r.Outcome != leasegate.Contended {
				t.Errorf("bob's write of alice's %s = %s, want contended", p, r.Outcome)
			}
		}
		before := mustStatus(t, e.c).Leases
		e.reopen()
		if after := mustStatus(t, e.c).Leases; !reflect.DeepEqual(after, before) {
			t.Fatalf("leases after replay = %+v, want %+v", after, before)
		}
	})
}

// TestNewDirNarrowsDownToTheNewName: a new name deep in the creator's
// tree splits each directory on its way, the rest kept whole.
func TestNewDirNarrowsDownToTheNewName(t *testing.T) {
	ws := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Workspace = ws })
		e.newDir("alice", "docs")
		mustFiles(t, ws, "docs/adr/001.md", "docs/img/a.png", "docs/index.md")
		if r := e.mutate("bob", "docs/adr/002.md"); r.Outcome != leasegate.Granted {
			t.Fatalf("bob's docs/adr/002.md = %s %s, want granted", r.Outcome, r.Message)
		}
		want := []string{"docs", "docs/adr", "docs/adr/001.md", "docs/img/**", "docs/index.md"}
		if got := e.held("alice", gate.KindAuto); !reflect.DeepEqual(got, want) {
			t.Errorf("alice holds %q, want %q", got, want)
		}
		if r := e.mutate("bob", "docs/adr/001.md"); r.Outcome != leasegate.Contended {
			t.Errorf("bob's write of alice's docs/adr/001.md = %s, want contended", r.Outcome)
		}
	})
}

// TestNewDirKeptWhole: what is not a new name beneath a new directory's
// lease, or a lease not taken on a new directory, is contended as before
// and the holder's lease is left as it was.
func TestNewDirKeptWhole(t *testing.T) {
	many := make([]string, coordinator.MaxNarrowEntries+1)
	for i := range many {
		many[i] = fmt.Sprintf("own/f%05d", i)
	}
	tests := []struct {
		name  string
		files []string
		take  func(e *env) // alice's lease on own/**
		asks  []string     // bob's write
	}{
		{"an existing file", []string{"own/a/f"}, func(e *env) { e.newDir("alice", "own") }, []string{"own/a/f"}},
		{"an existing directory", []string{"own/a/"}, func(e *env) { e.newDir("alice", "own") }, []string{"own/a/**"}},
		{"the directory itself", nil, func(e *env) { e.newDir("alice", "own") }, []string{"own/**"}},
		{"a name beneath a file", []string{"own/f"}, func(e *env) { e.newDir("alice", "own") }, []string{"own/f/g"}},
		{"a glob", nil, func(e *env) { e.newDir("alice", "own") }, []string{"own/*.go"}},
		{"a new and an existing name", []string{"own/a"}, func(e *env) { e.newDir("alice", "own") }, []string{"own/b", "own/a"}},
		{"too many entries", many, func(e *env) { e.newDir("alice", "own") }, []string{"own/new"}},
		{"a subtree written, not made", nil, func(e *env) { e.mutate("alice", "own/**") }, []string{"own/new"}},
		{"a check-out", nil, func(e *env) { e.checkout("alice", 0, "own/**") }, []string{"own/new"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				e := startEnv(t, func(c *coordinator.Config) { c.Workspace = ws })
				mustFiles(t, ws, append([]string{"own/"}, tt.files...)...)
				tt.take(e)
				before := mustStatus(t, e.c).Leases
				r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: tt.asks})
				if err != nil || r.Outcome != leasegate.Contended {
					t.Fatalf("bob's write of %q = %s %s, %v; want contended", tt.asks, r.Outcome, r.Message, err)
				}
				if after := mustStatus(t, e.c).Leases; !reflect.DeepEqual(after, before) {
					t.Errorf("leases after = %+v, want as before %+v", after, before)
				}
				if evs := e.events(gate.EventNarrowed); len(evs) != 0 {
					t.Errorf("lease.narrowed events = %+v, want none", evs)
				}
			})
		})
	}
}

// TestNewDirNarrowedReleasedOnCommit: a narrowed new directory's lease is
// released by a commit of the files it keeps, as its whole subtree was;
// the directories it keeps on the way hold nothing git commits.
func TestNewDirNarrowedReleasedOnCommit(t *testing.T) {
	repo := committedRepo(t, "README")
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Workspace = repo })
		e.newDir("alice", "docs")
		mustFiles(t, repo, "docs/adr/001.md", "docs/index.md")
		if r := e.mutate("bob", "docs/adr/002.md"); r.Outcome != leasegate.Granted {
			t.Fatalf("bob's docs/adr/002.md = %s %s, want granted", r.Outcome, r.Message)
		}
		runGit(t, repo, "add", "docs")
		runGitAt(t, repo, epoch.Add(time.Minute), "commit", "-q", "-m", "adr")
		want := []string{"docs", "docs/adr", "docs/adr/001.md", "docs/index.md"}
		if got := mustReleaseCommitted(t, e, "alice"); !reflect.DeepEqual(got, want) {
			t.Fatalf("ReleaseCommitted(alice) released %q, want %q", got, want)
		}
	})
}

// TestNewDirNarrowingsBounded: narrowed level after level, a lease keeps
// at most gate.MaxPaths paths; the narrowing that would pass that is not
// made, and the write waits as any contended one.
func TestNewDirNarrowingsBounded(t *testing.T) {
	ws := t.TempDir()
	var files []string
	for d := range 5 {
		for f := range 1000 {
			files = append(files, fmt.Sprintf("own/d%d/f%04d", d, f))
		}
	}
	mustFiles(t, ws, files...)
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Workspace = ws })
		e.newDir("alice", "own")
		for d := range 5 {
			want := leasegate.Granted
			if d == 4 {
				want = leasegate.Contended
			}
			p := fmt.Sprintf("own/d%d/new", d)
			if r := e.mutate("bob", p); r.Outcome != want {
				t.Fatalf("bob's %s = %s, want %s", p, r.Outcome, want)
			}
		}
		if n := len(e.held("alice", gate.KindAuto)); n > gate.MaxPaths {
			t.Errorf("alice's lease holds %d paths, over %d", n, gate.MaxPaths)
		}
	})
}
