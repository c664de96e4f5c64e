package sidecar

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/internal/servicetest"
)

// narrowedEvent is the ledger's narrowing of l to paths, by bob's write.
func narrowedEvent(l gate.Lease, paths ...string) gate.Event {
	l.Scope = gate.Scope{Type: gate.ScopeTypeOf(paths), Paths: paths}
	return gate.Event{Type: gate.EventNarrowed, LeaseID: l.ID, Lease: &l, Actor: "bob", Path: "own/b/**", Reason: "new directory shared"}
}

// TestNarrowingForgetsTheCache: the narrowing of the worker's new
// directory's lease drops what the sidecar remembers, so its next write
// beneath the directory is asked again; another owner's narrowing keeps
// it. The mirror of every owner's leases follows the narrowed scope.
func TestNarrowingForgetsTheCache(t *testing.T) {
	s, _ := fakeSidecar(t, servicetest.New())
	mine := servicetest.LeaseOn("alice", "own/**")
	mine.NewDir = true
	theirs := servicetest.LeaseOn("carol", "lib/**")
	theirs.NewDir = true
	s.observe(gate.Event{Type: gate.EventGranted, Lease: &mine})
	s.observe(gate.Event{Type: gate.EventGranted, Lease: &theirs})
	s.held.add("alice", []gate.Lease{mine})

	s.observe(narrowedEvent(theirs, "lib", "lib/x.go"))
	if !s.held.covers([]string{"own/b/g"}) {
		t.Fatal("the cache was dropped by another owner's narrowing")
	}
	if s.leased.covers("lib/new.go", false) || !s.leased.covers("lib/x.go", false) {
		t.Error("the mirror does not follow carol's narrowing to lib, lib/x.go")
	}
	s.observe(narrowedEvent(mine, "own", "own/a/**"))
	if s.held.covers([]string{"own/b/g"}) || s.held.covers([]string{"own/a/f"}) {
		t.Error("the cache still answers for own/ after alice's lease was narrowed")
	}
	if s.leased.covers("own/b/g", false) || !s.leased.covers("own/a/f", false) || !s.leased.covers("own", false) {
		t.Error("the mirror does not follow alice's narrowing to own, own/a/**")
	}
}

// TestMkdirOfTheHoldersNewDir: a mkdir refused the subtree because
// another worker is making the same directory (its new directory's lease)
// fails with EEXIST once that directory appears, as the kernel would fail
// it, asking nothing more; one that does not appear within newDirSettle,
// or refused by a lease that is no new directory's, is gated as any write.
func TestMkdirOfTheHoldersNewDir(t *testing.T) {
	refused := func(newDir bool) servicetest.Answer {
		l := servicetest.LeaseOn("bob", "own/**")
		l.NewDir = newDir
		return servicetest.Answer{Result: leasegate.Result{Outcome: leasegate.Denied, Reason: gate.ReasonHeldByOther, Holder: &l}}
	}
	tests := []struct {
		name    string
		newDir  bool
		appears bool // bob's mkdir lands while alice's waits
		want    error
		asked   int
	}{
		{"made by the holder", true, true, syscall.EEXIST, 1},
		{"not made within the bound", true, false, nil, 2},
		{"held by an explicit acquire", false, true, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				svc := servicetest.New()
				svc.Mutates = []servicetest.Answer{refused(tt.newDir), servicetest.Granted("alice", "own")}
				s, _ := fakeSidecar(t, svc)
				done := make(chan error, 1)
				go func() { done <- s.Decide(context.Background(), write(s, intercept.OpMkdir, "own")) }()
				clk := s.cfg.Clock.(*clock.Mock)
				for step := 0; ; step++ {
					synctest.Wait()
					select {
					case err := <-done:
						if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
							t.Fatalf("Decide(mkdir own) = %v, want %v", err, tt.want)
						}
						if n := svc.Count("Mutate"); n != tt.asked {
							t.Errorf("Mutate asked %d times, want %d", n, tt.asked)
						}
						return
					default:
					}
					if step == 5 && tt.appears {
						if err := os.Mkdir(filepath.Join(s.cfg.Workspace.Root, "own"), 0o755); err != nil {
							t.Fatal(err)
						}
					}
					clk.Add(time.Millisecond)
				}
			})
		})
	}
}
