package sidecar

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/workspace"
)

// mustGitWorkspace returns the workspace of a new git repository in a
// temp dir.
func mustGitWorkspace(tb testing.TB) *workspace.Workspace {
	tb.Helper()
	dir := tb.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		tb.Fatalf("git init: %v\n%s", err, out)
	}
	ws, err := workspace.Find(dir)
	if err != nil {
		tb.Fatalf("Find(%q) = %v", dir, err)
	}
	return ws
}

// BenchmarkDecideLocal measures the sidecar's answers that need no
// coordinator, on a real workspace: a write to a held file (DecideNow, the
// common case, and Decide when DecideNow left it), and a ref update in git's
// directory (a commit landing); now-held-bounded is now-held with the
// cache bounded as on a shared lease table.
func BenchmarkDecideLocal(b *testing.B) {
	ws := mustGitWorkspace(b)
	s := newTestSidecar(b, ws)
	held := intercept.Mutation{PID: 1, TID: 1, Op: intercept.OpOpenWrite, Paths: []string{ws.Root + "/src/a.go"}}
	ref := intercept.Mutation{PID: 1, TID: 1, Op: intercept.OpRename,
		Paths: []string{ws.GitDir + "/refs/heads/main.lock", ws.GitDir + "/refs/heads/main"}}
	b.Run("now-held", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := s.DecideNow(held); !ok || err != nil {
				b.Fatalf("DecideNow(held) = %v, %v", ok, err)
			}
		}
	})
	// On a shared lease table the cache's bound reads the clock.
	bounded := newTestSidecar(b, ws)
	bounded.held.fence = fence{heard: true, bounded: true, until: time.Now().Add(time.Hour), session: 1}
	b.Run("now-held-bounded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := bounded.DecideNow(held); !ok || err != nil {
				b.Fatalf("DecideNow(held) = %v, %v", ok, err)
			}
		}
	})
	for _, bc := range []struct {
		name string
		m    intercept.Mutation
	}{{name: "held", m: held}, {name: "git-ref", m: ref}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Decide(context.Background(), bc.m); err != nil {
					b.Fatalf("Decide(%s) = %v", bc.name, err)
				}
			}
		})
	}
}

// BenchmarkIdentity measures the lookup of a file's identity that every
// mutation sent to the coordinator pays, for an existing file and a
// missing one.
func BenchmarkIdentity(b *testing.B) {
	ws := mustGitWorkspace(b)
	s := newTestSidecar(b, ws)
	if err := os.WriteFile(filepath.Join(ws.Root, "a.go"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, p := range []string{"a.go", "missing.go"} {
		b.Run(p, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.identities([]string{p})
			}
		})
	}
}
