package coordinator_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/oklog/ulid/v2"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store/bolt"
)

// TestMutateGrantsFreeFileWithPair: the first write of a free file is
// granted at once, takes its Go test pair in the same answer, and is on
// disk before the answer: the ledger holds the grants, and a fresh handle
// on the file after the coordinator stopped replays them.
func TestMutateGrantsFreeFileWithPair(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		r := e.mutate("alice", "src/a.go")
		if r.Outcome != leasegate.Granted || r.Reason != gate.ReasonOK {
			t.Fatalf("Mutate(alice, src/a.go) = %s %s, want granted OK", r.Outcome, r.Reason)
		}
		var paths []string
		for _, l := range r.Leases {
			paths = append(paths, l.Scope.Paths...)
			if l.Owner.Name != "alice" || l.Kind != gate.KindAuto || l.State != gate.StateActive || !l.ExpiresAt.IsZero() {
				t.Errorf("granted lease %+v, want an active auto lease of alice without expiry", l)
			}
			if _, err := ulid.ParseStrict(string(l.ID)); err != nil {
				t.Errorf("lease id %q is not a ULID: %v", l.ID, err)
			}
		}
		slices.Sort(paths)
		if want := []string{"src/a.go", "src/a_test.go"}; !slices.Equal(paths, want) {
			t.Fatalf("granted paths %q, want %q", paths, want)
		}
		grants := e.events(gate.EventGranted)
		if len(grants) != 2 {
			t.Fatalf("%d lease.granted events in the ledger when Mutate returned, want 2", len(grants))
		}
		e.stop()
		assertLedgerHolds(t, e.ledgerPath, r.Leases)
	})
}

// assertLedgerHolds replays the ledger file into a fresh table and checks
// that every lease in want is active there.
func assertLedgerHolds(t *testing.T, path string, want []gate.Lease) {
	t.Helper()
	ledger, err := bolt.Open(path, bolt.Config{NoSync: true})
	if err != nil {
		t.Fatalf("bolt.Open(%s) = %v", path, err)
	}
	defer ledger.Close()
	table := gate.NewTable()
	if err := ledger.Replay(context.Background(), 0, table.Apply); err != nil {
		t.Fatalf("Replay() = %v", err)
	}
	for _, w := range want {
		got, ok := table.Lease(w.ID)
		if !ok || got.State != gate.StateActive || !slices.Equal(got.Scope.Paths, w.Scope.Paths) {
			t.Errorf("lease %s of %q after reopening: %+v (found %t), want active", w.ID, w.Scope.Paths, got, ok)
		}
	}
}

// TestMutateOwnFileAgain: a second write of a file the owner holds is
// granted from the lease it has, with no new grant and no new token.
func TestMutateOwnFileAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		first := e.mutate("alice", "notes.txt")
		again := e.mutate("alice", "notes.txt")
		if again.Outcome != leasegate.Granted || len(again.Leases) != 1 || again.Leases[0].ID != first.Leases[0].ID {
			t.Fatalf("second Mutate = %s with %v, want granted on lease %s", again.Outcome, again.Leases, first.Leases[0].ID)
		}
		if n := len(e.events(gate.EventGranted)); n != 1 {
			t.Fatalf("%d grants in the ledger, want 1", n)
		}
	})
}

// TestMutateTryDeniesWithoutContention: Try answers Denied at once when
// another owner holds the path: no heartbeat, no retry.
func TestMutateTryDeniesWithoutContention(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.mutate("alice", "dir/x.txt")
		r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "mkdir", Paths: []string{"dir/**"}, Try: true})
		if err != nil || r.Outcome != leasegate.Denied || r.Reason != gate.ReasonHeldByOther || r.Holder == nil || r.Holder.Owner.Name != "alice" {
			t.Fatalf("Mutate(try bob dir/**) = %+v, %v; want denied, held by alice", r, err)
		}
		e.advanceTo(coordinator.DefaultConfig().Windows.Retry.After * 2)
		if n := len(e.events(gate.EventContention)) + len(e.events(gate.EventRetry)); n != 0 {
			t.Fatalf("a Try denial wrote %d contention events, want none", n)
		}
	})
}

// TestMutateRefusesBadRequests: unknown owners, empty or escaping paths
// are refused with their reason codes and grant nothing.
func TestMutateRefusesBadRequests(t *testing.T) {
	tests := []struct {
		name  string
		owner string
		paths []string
		want  error
	}{
		{name: "unregistered owner", owner: "mallory", paths: []string{"a.txt"}, want: gate.ErrNotFound},
		{name: "no paths", owner: "alice", paths: nil, want: gate.ErrInputInvalid},
		{name: "parent escape", owner: "alice", paths: []string{"../outside.txt"}, want: gate.ErrOutside},
		{name: "absolute path", owner: "alice", paths: []string{"/etc/passwd"}, want: gate.ErrOutside},
	}
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		for _, tt := range tests {
			r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: tt.owner, Op: "write", Paths: tt.paths})
			if !errors.Is(err, tt.want) || r.Outcome == leasegate.Granted {
				t.Errorf("%s: Mutate(%s, %q) = %s, %v; want %v", tt.name, tt.owner, tt.paths, r.Outcome, err, tt.want)
			}
		}
		if n := len(e.events(gate.EventGranted)); n != 0 {
			t.Fatalf("%d grants after refused requests, want 0", n)
		}
	})
}

// TestMutateThroughSymlink: a path whose literal part leads out of the
// workspace through a symlink, even into a sibling sharing the root's
// name as a prefix, is refused OUTSIDE_WORKSPACE; one that stays inside,
// or names the root's own tree through a link, is granted.
func TestMutateThroughSymlink(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	for _, d := range []string{filepath.Join(ws, "src"), filepath.Join(dir, "wsx")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"out": filepath.Join(dir, "wsx"), "in": filepath.Join(ws, "src")} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Workspace = ws })
		for _, p := range []string{"out/a.go", "out/new/**"} {
			_, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{p}})
			if gate.ReasonOf(err) != gate.ReasonOutsideWorkspace {
				t.Errorf("Mutate(alice, %s) = %v, want %s", p, err, gate.ReasonOutsideWorkspace)
			}
		}
		if r := e.mutate("alice", "in/a.go"); r.Outcome != leasegate.Granted {
			t.Errorf("Mutate(alice, in/a.go) = %s %s, want granted", r.Outcome, r.Reason)
		}
	})
}
