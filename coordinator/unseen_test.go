package coordinator_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestUnseenCallerIsJudgedByHeartbeat: a process outside the
// coordinator's pid namespace (SO_PEERCRED pid 0) registers a new owner,
// and acts as it; it cannot act as, or
// register over, an owner the coordinator sees.
func TestUnseenCallerIsJudgedByHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		outside := leasegate.WithPeer(e.ctx, gate.Peer{PID: 0, UID: 0})
		if err := e.c.Register(outside, leasegate.Registration{Owner: gate.Owner{Name: "host", Host: "h", PID: 4242}}); err != nil {
			t.Fatalf("Register from outside the namespace = %v, want nil", err)
		}
		if _, err := e.c.Mutate(outside, leasegate.MutateRequest{Owner: "host", Op: "write", Paths: []string{"b.txt"}}); err != nil {
			t.Fatalf("Mutate as the unseen owner = %v, want granted", err)
		}
		e.mutate("alice", "a.txt")
		if _, err := e.c.Mutate(outside, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"c.txt"}}); !errors.Is(err, gate.ErrOwnerMismatch) {
			t.Fatalf("Mutate as alice from outside = %v, want OWNER_MISMATCH", err)
		}
		if err := e.c.Register(outside, leasegate.Registration{Owner: gate.Owner{Name: "alice", PID: 7}}); !errors.Is(err, gate.ErrOwnerMismatch) {
			t.Fatalf("Register(alice) from outside = %v, want OWNER_MISMATCH", err)
		}
	})
}
