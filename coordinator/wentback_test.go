package coordinator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// TestLedgerWipedIsServedAsEtcdHoldsIt: etcd is wiped and started empty at
// the same endpoint while host-a's coordinator serves alice's lease. The
// coordinator serves again by itself, on the ledger as etcd now holds it
// (it waited for a ledger that no longer exists, warning of a reload,
// forever), and alice's next write is granted there afresh. Status says
// the ledger went back, naming alice's lost lease, and the ledger's history
// of the file records it (ledger.went_back).
func TestLedgerWipedIsServedAsEtcdHoldsIt(t *testing.T) {
	cluster := startCluster(t)
	ctx := context.Background()
	a, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", goneTTL)
	if err := a.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: "alice", Host: "host-a"}}); err != nil {
		t.Fatal(err)
	}
	r, err := a.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}})
	if err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("alice's write on host-a = %+v, %v, want granted", r, err)
	}
	lost := r.Leases[0].ID
	if err := cluster.WipeMember(0); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := a.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Leases) == 0 && st.LedgerWarning == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after etcd was wiped: leases %+v, warning %q; want no lease (the ledger holds none) and no warning", st.Leases, st.LedgerWarning)
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, err := a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if wb := st.WentBack; wb == nil || wb.LostCount != 1 || len(wb.Lost) != 1 || wb.Lost[0].ID != lost || wb.Lost[0].Owner != "alice" ||
		wb.Lost[0].Paths[0] != "a.txt" || !strings.Contains(wb.Summary(), "alice's a.txt") {
		t.Fatalf("status's ledger_went_back after the wipe = %+v, want alice's lease %s on a.txt lost", wb, lost)
	}
	waitWentBackRecorded(t, a, lost, "a.txt")
	waitOutcome(t, "alice's write after the wipe", func() (leasegate.Result, error) {
		return a.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}, Try: true})
	}, true)
	// A coordinator started afterwards, on another host or after a's
	// restart, says it as a did, from the ledger.went_back events, until
	// WentBackShown after it was found.
	for _, tc := range []struct {
		host  string
		after time.Duration
		said  bool
	}{{"host-c", coordinator.WentBackShown - time.Minute, true}, {"host-d", coordinator.WentBackShown, false}} {
		clk := clock.NewMock()
		clk.Set(st.WentBack.At.Add(tc.after))
		c, stop := sharedCoordinator(t, cluster.Endpoints, tc.host, goneTTL, func(cfg *coordinator.Config) { cfg.Clock = clk })
		cst, err := c.Status(ctx)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		switch wb := cst.WentBack; {
		case !tc.said && wb != nil:
			t.Errorf("status of a coordinator started %s after the ledger went back still says it: %+v", tc.after, wb)
		case tc.said && (wb == nil || wb.Summary() != st.WentBack.Summary()):
			t.Errorf("status of a coordinator started %s after the ledger went back = %+v, want what a said:\n%s", tc.after, wb, st.WentBack.Summary())
		}
	}
}

// waitWentBackRecorded waits up to 30 s for c's history of path to hold
// one ledger.went_back event naming lease id.
func waitWentBackRecorded(t *testing.T, c *coordinator.Coordinator, id gate.LeaseID, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		evs, err := c.History(context.Background(), gate.NoLease, path, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []gate.Event
		for _, e := range evs {
			if e.Type == gate.EventLedgerWentBack {
				got = append(got, e)
			}
		}
		if len(got) == 1 && got[0].LeaseID == id && strings.Contains(got[0].Reason, "went back") {
			return
		}
		if len(got) > 1 || time.Now().After(deadline) {
			t.Fatalf("ledger.went_back events in the history of %s = %+v; want one naming lease %s", path, got, id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLedgerRestoredOlderIsServedAsEtcdHoldsIt: etcd is restored from a
// backup taken before alice's grant, while both coordinators keep their
// sessions (the backup holds them). Both serve the ledger as etcd holds it
// now: bob is granted the file on host-b, alice is refused it on host-a,
// and a coordinator started afterwards replays the same ledger. Without
// the fix both kept alice's lease and went on committing after a gap in
// the ledger's seqs, which no coordinator could replay.
func TestLedgerRestoredOlderIsServedAsEtcdHoldsIt(t *testing.T) {
	cluster := startCluster(t)
	ctx := context.Background()
	a, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", keptTTL)
	b, _ := sharedCoordinator(t, cluster.Endpoints, "host-b", keptTTL)
	for _, r := range []struct {
		c    *coordinator.Coordinator
		name string
		host string
	}{{a, "alice", "host-a"}, {b, "bob", "host-b"}} {
		if err := r.c.Register(ctx, leasegate.Registration{Owner: gate.Owner{Name: r.name, Host: r.host}}); err != nil {
			t.Fatal(err)
		}
	}
	backup, err := cluster.BackupMember(0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}})
	if err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("alice's write on host-a = %+v, %v, want granted", r, err)
	}
	alice := r.Leases[0].ID
	write := func(c *coordinator.Coordinator, owner string) (leasegate.Result, error) {
		return c.Mutate(ctx, leasegate.MutateRequest{Owner: owner, Op: "write", Paths: []string{"a.txt"}, Try: true})
	}
	waitOutcome(t, "bob's write of alice's file", func() (leasegate.Result, error) { return write(b, "bob") }, false)
	if err := cluster.RestoreMember(0, backup); err != nil {
		t.Fatal(err)
	}
	waitOutcome(t, "bob's write after the restore", func() (leasegate.Result, error) { return write(b, "bob") }, true)
	waitOutcome(t, "alice's write after the restore", func() (leasegate.Result, error) { return write(a, "alice") }, false)
	for _, co := range []*coordinator.Coordinator{a, b} {
		if st, err := co.Status(ctx); err != nil || st.WentBack == nil || st.WentBack.LostCount != 1 || st.WentBack.Lost[0].Owner != "alice" {
			t.Fatalf("status's ledger_went_back after the restore = %+v, %v; want alice's lease lost", st.WentBack, err)
		}
	}
	waitWentBackRecorded(t, b, alice, "a.txt")
	c, _ := sharedCoordinator(t, cluster.Endpoints, "host-c", keptTTL)
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Leases) != 1 || st.Leases[0].Owner.Name != "bob" {
		t.Fatalf("leases a coordinator started after the restore replays = %+v, want bob's alone", st.Leases)
	}
}

// waitOutcome asks do for up to 30 s until its answer is granted (or, with
// granted false, an answer that is not granted).
func waitOutcome(t *testing.T, what string, do func() (leasegate.Result, error), granted bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := do()
		if err == nil && (r.Outcome == leasegate.Granted) == granted {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %+v, %v for 30 s; want granted %v", what, r, err, granted)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
