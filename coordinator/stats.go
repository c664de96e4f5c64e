package coordinator

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/store"
)

// commitLatencyBounds are the upper bounds, in seconds, of the commit
// latency histogram: from a page-cache fsync to a disk that stalls.
var commitLatencyBounds = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5}

// commitStats accumulates the commit figures. Commit latency is real
// elapsed time (time.Since on the monotonic clock), not the injected
// clock: it measures the disk, which a mock clock cannot.
type commitStats struct {
	mu      sync.Mutex
	latency leasegate.Histogram
	events  uint64
}

func newCommitStats() *commitStats {
	b := commitLatencyBounds
	return &commitStats{latency: leasegate.Histogram{Bounds: b, Counts: make([]uint64, len(b))}}
}

// observe records one commit of n events queued at start.
func (s *commitStats) observe(start time.Time, n int) {
	d := time.Since(start).Seconds()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, b := range s.latency.Bounds {
		if d <= b {
			s.latency.Counts[i]++
		}
	}
	s.latency.Count++
	s.latency.Sum += d
	s.events += uint64(n)
}

// Stats returns the coordinator's own figures.
func (c *Coordinator) Stats(context.Context) (leasegate.Stats, error) {
	st := leasegate.Stats{JournalHeadroom: -1, Goroutines: runtime.NumGoroutine()}
	if d, ok := c.cfg.Ledger.(degradable); ok {
		st.JournalHeadroom = d.Headroom()
	}
	s := c.w.stats
	s.mu.Lock()
	defer s.mu.Unlock()
	st.CommitLatency = s.latency
	st.CommitLatency.Counts = append([]uint64(nil), s.latency.Counts...)
	st.CommittedEvents = s.events
	b := store.NewBatches() // none counted: the ledger groups commits without saying how
	if l, ok := c.cfg.Ledger.(store.Batcher); ok {
		b = l.Batches()
	}
	st.CommitBatch = batchHistogram(b)
	return st, nil
}

// batchHistogram is b as a Histogram of events per commit.
func batchHistogram(b store.Batches) leasegate.Histogram {
	return leasegate.Histogram{Bounds: b.Bounds, Counts: b.Counts, Count: b.Commits, Sum: float64(b.Events)}
}
