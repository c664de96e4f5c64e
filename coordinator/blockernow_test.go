package coordinator_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// TestBlockerShowsHolderNow: a blocker read after its holder let go shows
// the holder's lease as it is now (ended, when, by whom, from the lease
// table) beside the record of its retry, and no longer offers to evict
// that lease, in Blocker, Blockers, Status and the report files, which
// are rewritten when the holder's lease ends.
func TestBlockerShowsHolderNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		id := blocked(t, e)
		if rep, _ := blockerOf(e.c, id); rep.HolderNow == nil || !rep.HolderNow.Holds || !hasEvict(rep) {
			t.Fatalf("Blocker(%s) while alice holds: holder now %+v, steps %q; want holding, with an evict", id, rep.HolderNow, rep.HowToResolve)
		}
		e.advanceTo(time.Hour)
		if _, err := e.c.End(e.ctx, "alice", "worker exited"); err != nil {
			t.Fatalf("End(alice) = %v", err)
		}
		e.advanceTo(time.Hour + time.Second)
		st, err := e.c.Status(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		var onDisk blocker.Report
		js, err := os.ReadFile(filepath.Join(e.blockerDir, id+".json"))
		if err == nil {
			err = json.Unmarshal(js, &onDisk)
		}
		if err != nil {
			t.Fatalf("report file: %v", err)
		}
		rep, _ := blockerOf(e.c, id)
		for what, r := range map[string]blocker.Report{"Blocker": rep, "Blockers": mustBlockers(t, e.c, false)[0], "Status": st.Blockers[0], "the report file": onDisk} {
			n := r.HolderNow
			if n == nil || n.Holds || !n.State.Terminal() || !n.EndedAt.Equal(e.at(time.Hour)) || n.Source != blocker.SourceTable {
				t.Errorf("%s: holder now %+v, want alice's lease ended at %s, from the lease table", what, n, e.at(time.Hour))
				continue
			}
			if hasEvict(r) || !strings.Contains(r.HowToResolve[0], "--retry  # first: the holder no longer holds the file (lease "+string(n.State)) {
				t.Errorf("%s: steps %q, want the retry first and no evict of an ended lease", what, r.HowToResolve)
			}
		}
		if rep.Holder.Liveness.Status != gate.Alive {
			t.Errorf("Blocker(%s).Holder.Liveness = %s, want the record of the retry kept (alive)", id, rep.Holder.Liveness.Status)
		}
	})
}

func hasEvict(r blocker.Report) bool {
	return slices.ContainsFunc(r.HowToResolve, func(s string) bool { return strings.HasPrefix(s, "leasegate evict ") })
}
