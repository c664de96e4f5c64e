package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// longRetry is a writer's own retry window in the tests of the wait: long
// enough that a write granted well before it was not granted by its retry.
const longRetry = "60s"

// TestFreedFileWakesWaiter: a release, an eviction or a reclaim of the
// lease a held write waits for decides that write at once, recorded as
// woken by the lease's end; the retry 60 s later never runs.
func TestFreedFileWakesWaiter(t *testing.T) {
	ends := map[string]func(r *repo) func(){
		"released": func(r *repo) func() {
			r.mustLG("acquire", "--as", "holder", "a.txt")
			return func() { r.mustLG("release", "a.txt", "--as", "holder") }
		},
		"evicted": func(r *repo) func() {
			r.mustLG("acquire", "--as", "holder", "a.txt")
			return func() { r.mustLG("evict", "a.txt", "--reason", "test") }
		},
		"reclaimed": func(r *repo) func() {
			holder := r.worker("holder", "echo h >> a.txt; sleep 60")
			eventually(t, 10*time.Second, "holder to lease a.txt", func() bool { return r.holders()["a.txt"] == "holder" })
			return func() { _ = holder.cmd.Process.Kill() }
		},
	}
	for name, hold := range ends {
		t.Run(name, func(t *testing.T) {
			r := newRepo(t, map[string]string{"a.txt": "a\n"})
			end := hold(r)
			w := r.runWith("writer", "echo w >> a.txt", "--retry-after", longRetry)
			eventually(t, 10*time.Second, "the writer's contention", func() bool { return len(r.status().Contentions) == 1 })
			end()
			if code := w.wait(t, 30*time.Second); code != 0 {
				t.Fatalf("writer exit %d:\n%s", code, w.out)
			}
			if !strings.HasSuffix(r.read("a.txt"), "w\n") {
				t.Fatalf("the writer's write is missing: %q", r.read("a.txt"))
			}
			var ended, woken, granted *gate.Event
			for _, e := range r.history("a.txt") {
				switch {
				case ended == nil && (e.Type == gate.EventReleased || e.Type == gate.EventEvicted || e.Type == gate.EventReclaimed):
					ended = &e // the holder's; the writer's own comes at its exit
				case e.Type == gate.EventContentionWoken && e.Actor == "writer":
					woken = &e
				case e.Type == gate.EventGranted && e.Lease.Owner.Name == "writer":
					granted = &e
				case e.Type == gate.EventRetry || e.Type == gate.EventBlockerOpened:
					t.Fatalf("%s in the history: the write waited for its retry", e.Type)
				}
			}
			if ended == nil || woken == nil || granted == nil {
				t.Fatalf("history of a.txt lacks the end (%v), the wake (%v) or the grant (%v)", ended, woken, granted)
			}
			// By the ledger's own clock: the grant follows the end within a
			// second (slack for a loaded machine), not the 60 s retry.
			if gap := granted.At.Sub(ended.At); gap < -time.Second || gap > time.Second {
				t.Fatalf("granted %s after the lease ended, want at once", gap)
			}
			if woken.LeaseID != ended.LeaseID || woken.Reason != string(ended.Type) {
				t.Fatalf("woken by %s (%s), want the ended lease %s (%s)", woken.LeaseID, woken.Reason, ended.LeaseID, ended.Type)
			}
			if cs := r.status().Contentions; len(cs) != 0 && cs[0].Outcome == "contended" {
				t.Fatalf("status still shows the contention waiting: %+v", cs)
			}
		})
	}
}
