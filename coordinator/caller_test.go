package coordinator_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// peerCtx is a request context whose connection's peer is process pid of
// this user, as the API server would make it. Made outside any synctest
// bubble, whose fake clock would skew the /proc create times read.
func peerCtx(pid int) context.Context {
	ctx := leasegate.WithPeer(context.Background(), gate.Peer{PID: pid, UID: uint32(os.Geteuid()), GID: uint32(os.Getegid())})
	coordinator.PrimePeer(ctx)
	return ctx
}

// TestCallerActsOnlyAsItsOwner: a peer whose ancestry holds an owner's
// root process acts as that owner only: its own leases it acquires and
// releases, another owner's it cannot touch, and it can neither evict nor
// resolve nor register a name in use. A peer outside every owner's tree
// (an operator) may do all of it, and its acts are recorded with its pid
// and process name.
func TestCallerActsOnlyAsItsOwner(t *testing.T) {
	inside, operator := peerCtx(os.Getpid()), peerCtx(os.Getppid())
	start, err := liveness.ProcessStart(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		if err := e.c.Register(e.ctx, leasegate.Registration{Owner: gate.Owner{Name: "worker", PID: os.Getpid(), StartTime: start}}); err != nil {
			t.Fatalf("Register(worker) = %v", err)
		}
		alices := e.checkout("alice", 0, "a.txt")
		release := func(ctx context.Context, as string, l gate.Lease) error {
			_, err := e.c.Lease(ctx, leasegate.LeaseRequest{Op: gate.OpRelease, Owner: gate.Owner{Name: as}, LeaseID: l.ID, Token: l.FencingToken})
			return err
		}
		evict := leasegate.LeaseRequest{Op: gate.OpEvict, Owner: gate.Owner{Name: "ops"}, LeaseID: alices.ID, Reason: "stale", Admin: "root"}
		if err := release(inside, "alice", alices); !errors.Is(err, gate.ErrOwnerMismatch) || !strings.Contains(err.Error(), "runs under owner worker") {
			t.Errorf("release --as alice from inside worker's tree = %v, want OWNER_MISMATCH naming worker", err)
		}
		if _, err := e.c.Lease(inside, evict); !errors.Is(err, gate.ErrAdminRequired) {
			t.Errorf("evict from inside worker's tree, admin token shown = %v, want ADMIN_REQUIRED", err)
		}
		if _, err := e.c.Resolve(inside, "B1", "deny", "root", ""); !errors.Is(err, gate.ErrAdminRequired) {
			t.Errorf("resolve from inside worker's tree = %v, want ADMIN_REQUIRED", err)
		}
		if err := e.c.Register(inside, leasegate.Registration{Owner: gate.Owner{Name: "alice"}}); !errors.Is(err, gate.ErrOwnerMismatch) {
			t.Errorf("Register(alice) from inside worker's tree = %v, want OWNER_MISMATCH", err)
		}
		if err := e.c.Register(inside, leasegate.Registration{Owner: gate.Owner{Name: "fresh"}}); err != nil {
			t.Errorf("Register(fresh) from inside worker's tree = %v, want a name no one used allowed", err)
		}
		res, err := e.c.Lease(inside, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: "worker"}, Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{"w.txt"}}})
		if err != nil {
			t.Fatalf("acquire as worker from its own tree = %v", err)
		}
		if err := release(inside, "worker", res.Leases[0]); err != nil {
			t.Errorf("release of its own lease from worker's tree = %v", err)
		}
		if err := release(operator, "alice", alices); err != nil {
			t.Fatalf("release --as alice by an operator = %v", err)
		}
		evs := e.events(gate.EventReleased)
		last := evs[len(evs)-1]
		if last.LeaseID != alices.ID || last.By == nil || last.By.PID != os.Getppid() || last.By.Comm == "" || last.By.Source != "SO_PEERCRED" {
			t.Errorf("operator's release recorded as %+v by %+v, want pid %d with its name (SO_PEERCRED)", last, last.By, os.Getppid())
		}
	})
}
