package coordinator_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestOwnHeartbeatTTL: an owner that names its own heartbeat TTL (a hook
// session whose agent process was not found) beats with its calls:
// mutations and activity refresh its heartbeat, and only its; a TTL out
// of bounds is refused. (liveness judges by that TTL:
// TestEvaluateByHeartbeat.)
func TestOwnHeartbeatTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		if err := e.c.Register(e.ctx, leasegate.Registration{Owner: gate.Owner{Name: "bad"}, HeartbeatTTL: 2 * leasegate.MaxHeartbeatTTL}); err == nil {
			t.Fatal("a heartbeat TTL above the bound was accepted")
		}
		if err := e.c.Register(e.ctx, leasegate.Registration{Owner: gate.Owner{Name: "cc-s"}, HeartbeatTTL: time.Minute}); err != nil {
			t.Fatal(err)
		}
		beat := func(name string) time.Duration {
			for _, o := range mustStatus(e.t, e.c).Owners {
				if o.Name == name {
					return o.LastHeartbeat.Sub(e.start)
				}
			}
			t.Fatalf("no owner %s", name)
			return 0
		}
		e.advanceTo(20 * time.Second)
		e.mutate("cc-s", "a.txt")
		e.mutate("alice", "b.txt")
		if got, alice := beat("cc-s"), beat("alice"); got != 20*time.Second || alice != 0 {
			t.Fatalf("after a mutation at 20 s: heartbeats cc-s %s, alice %s; want 20s and 0s (only an owner with its own TTL beats by calls)", got, alice)
		}
		e.advanceTo(50 * time.Second)
		e.c.Activity(e.ctx, "cc-s")
		if got := beat("cc-s"); got != 50*time.Second {
			t.Fatalf("after activity at 50 s: heartbeat %s, want 50s", got)
		}
	})
}
