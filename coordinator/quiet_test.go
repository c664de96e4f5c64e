package coordinator_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// quietProber judges with the real heartbeat rule, so a test sees what
// the coordinator hands the evaluator after a restart.
type quietProber struct{ *fakeProber }

func (p quietProber) Evaluate(s liveness.Subject, now time.Time) gate.Liveness {
	if s.Owner.Name != "cc-s" {
		return p.fakeProber.Evaluate(s, now)
	}
	cfg := liveness.DefaultConfig()
	cfg.Host = "here"
	e, err := liveness.New(cfg)
	if err != nil {
		panic(err)
	}
	return e.Evaluate(s, now)
}

// TestRestartDoesNotKeepQuietOwnersLeases: heartbeats are not in the
// ledger, so after a restart an owner judged by heartbeat has none
// recorded. Its auto leases are reclaimed once it has been quiet for its
// whole TTL since the restart (not before, and not never), with evidence
// naming the restart.
func TestRestartDoesNotKeepQuietOwnersLeases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Liveness = quietProber{newFakeProber()} })
		if err := e.c.Register(e.ctx, leasegate.Registration{Owner: gate.Owner{Name: "cc-s"}, HeartbeatTTL: time.Minute}); err != nil {
			t.Fatal(err)
		}
		e.mutate("cc-s", "a.txt")
		e.reopen()
		e.advanceTo(40 * time.Second)
		if ev := quietEvidence(t, e, "cc-s"); !strings.Contains(ev, "unless it beats") {
			t.Fatalf("status shows cc-s 40 s after the restart with %q, want when it will be judged dead", ev)
		}
		e.c.CheckLiveness(e.ctx)
		if got := e.held("cc-s", gate.KindAuto); len(got) != 1 {
			t.Fatalf("40 s after the restart cc-s holds %v, want a.txt still (within its 1m ttl)", got)
		}
		e.advanceTo(61 * time.Second)
		e.c.CheckLiveness(e.ctx)
		if got := e.held("cc-s", gate.KindAuto); len(got) != 0 {
			t.Fatalf("61 s after the restart cc-s holds %v, want its lease reclaimed", got)
		}
		rs := e.events(gate.EventReclaimed)
		if len(rs) != 1 || !strings.Contains(rs[0].Reason, "no heartbeat since the coordinator started") {
			t.Fatalf("reclaims %+v, want one naming the restart", rs)
		}
	})
}

// quietEvidence is the liveness evidence status shows for the owner.
func quietEvidence(t *testing.T, e *env, name string) string {
	t.Helper()
	st, err := e.c.Status(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range st.Owners {
		if o.Name == name {
			return strings.Join(o.Liveness.Evidence, "; ")
		}
	}
	t.Fatalf("status has no owner %s", name)
	return ""
}
