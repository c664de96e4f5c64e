package coordinator_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestCheckAnswersOnlyTheAskedPaths: a check names the leases on the asked
// paths (a glob included), each holder's liveness, the contention and the
// blocker on them, and nothing of paths it was not asked about.
func TestCheckAnswersOnlyTheAskedPaths(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.register("carol")
		e.live.set("carol", gate.Alive, "pid 77 running")
		e.checkout("carol", time.Hour, "docs/**")
		con := contend(t, e) // alice holds src/a.go (and its pair), bob waits on it
		e.advanceTo(retryAt)
		r, err := e.c.WaitContention(e.ctx, con.ID)
		if err != nil || r.Blocker == nil {
			t.Fatalf("WaitContention after the retry = %s, %v; want a blocker", r.Outcome, err)
		}
		v, err := e.c.Check(e.ctx, []string{"src/*.go", "README.md"})
		if err != nil {
			t.Fatalf("Check(src/*.go, README.md) = %v", err)
		}
		if got := holdersOf(v.Leases); !slices.Equal(got, []string{"alice"}) {
			t.Errorf("Check(src/*.go) leases held by %q, want alice's only (not carol's docs/**)", got)
		}
		if l := v.Liveness["alice"]; l.Status != gate.Alive || len(v.Liveness) != 1 {
			t.Errorf("Check liveness = %v, want alice alive and no one else", v.Liveness)
		}
		if len(v.Blockers) != 1 || v.Blockers[0].ID != r.Blocker.ID {
			t.Errorf("Check blockers = %v, want %s", v.Blockers, r.Blocker.ID)
		}
		if !v.Now.Equal(e.at(retryAt)) || !v.Caller.Operator {
			t.Errorf("Check now %s, caller %+v; want %s and the in-process caller (trusted)", v.Now, v.Caller, e.at(retryAt))
		}
		v, err = e.c.Check(e.ctx, []string{"docs/guide.md"})
		if err != nil || !slices.Equal(holdersOf(v.Leases), []string{"carol"}) || len(v.Blockers) != 0 || len(v.Contentions) != 0 {
			t.Errorf("Check(docs/guide.md) = %+v, %v; want carol's check-out alone", v, err)
		}
	})
}

// TestCheckContention: a write waiting for its retry shows on its path.
func TestCheckContention(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		con := contend(t, e)
		v, err := e.c.Check(e.ctx, []string{"src/a.go"})
		if err != nil || len(v.Contentions) != 1 || v.Contentions[0].ID != con.ID || !v.Contentions[0].RetryAt.Equal(con.RetryAt) {
			t.Fatalf("Check(src/a.go) contentions = %+v, %v; want %s retrying at %s", v.Contentions, err, con.ID, con.RetryAt)
		}
		if v, _ := e.c.Check(e.ctx, []string{"src/b.go"}); len(v.Contentions) != 0 || len(v.Leases) != 0 {
			t.Fatalf("Check(src/b.go) = %+v, want nothing on it", v)
		}
	})
}

// TestCheckBadInput: no paths, too many, or a path that leaves the
// workspace is refused with its reason code.
func TestCheckBadInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		many := make([]string, leasegate.MaxCheckPaths+1)
		for i := range many {
			many[i] = "f" + strings.Repeat("x", i%7)
		}
		tests := []struct {
			name  string
			paths []string
			want  gate.Reason
		}{
			{"empty", nil, gate.ReasonInputInvalid},
			{"too many", many, gate.ReasonInputInvalid},
			{"dot-dot", []string{"../etc/passwd"}, gate.ReasonOutsideWorkspace},
		}
		for _, tt := range tests {
			_, err := e.c.Check(e.ctx, tt.paths)
			var d *gate.DeniedError
			if !errors.As(err, &d) || d.Reason != tt.want {
				t.Errorf("Check(%s) = %v, want %s", tt.name, err, tt.want)
			}
		}
	})
}

func holdersOf(ls []gate.Lease) []string {
	var out []string
	for _, l := range ls {
		if !slices.Contains(out, l.Owner.Name) {
			out = append(out, l.Owner.Name)
		}
	}
	return out
}
