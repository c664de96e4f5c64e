package coordinator_test

import (
	"testing"
	"testing/synctest"
)

// TestStatsCountCommits: each durable commit is timed and its events
// counted; the bbolt ledger reports its journal headroom.
func TestStatsCountCommits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, slowLiveness)
		before := mustStats(e.t, e.c)
		e.checkout("carol", 0, "docs/**")
		e.checkout("dave", 0, "src/**")
		st := mustStats(e.t, e.c)
		if got := st.CommitLatency.Count - before.CommitLatency.Count; got < 2 {
			t.Errorf("commit latency count grew by %d over two check-outs, want at least 2", got)
		}
		if st.CommittedEvents <= before.CommittedEvents {
			t.Errorf("committed events %d after two check-outs, want more than %d", st.CommittedEvents, before.CommittedEvents)
		}
		last := len(st.CommitLatency.Counts) - 1
		if st.CommitLatency.Counts[last] > st.CommitLatency.Count {
			t.Errorf("histogram's last bucket %d exceeds its count %d", st.CommitLatency.Counts[last], st.CommitLatency.Count)
		}
		if st.CommitBatch.Count == 0 || st.CommitBatch.Sum < float64(st.CommitBatch.Count) {
			t.Errorf("commit batch histogram: %d commits of %v events; want commits of at least one event each", st.CommitBatch.Count, st.CommitBatch.Sum)
		}
		if st.JournalHeadroom <= 0 || st.Goroutines <= 0 {
			t.Errorf("journal headroom %d, goroutines %d; want both positive", st.JournalHeadroom, st.Goroutines)
		}
	})
}
