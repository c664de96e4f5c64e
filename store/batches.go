package store

// Batches is how many events a group-committing ledger wrote per commit:
// Counts[i] commits carried at most Bounds[i] events (cumulative);
// Commits and Events cover all of them.
type Batches struct {
	Bounds  []float64
	Counts  []uint64
	Commits uint64
	Events  uint64
}

// Batcher is a Ledger that commits appends in groups and reports the
// size of its commits.
type Batcher interface {
	Batches() Batches
}

// BatchBounds are the upper bounds of Batches: powers of two, from a
// commit of one decision's events to a full group commit.
var BatchBounds = []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}

// NewBatches returns empty Batches over BatchBounds.
func NewBatches() Batches {
	return Batches{Bounds: BatchBounds, Counts: make([]uint64, len(BatchBounds))}
}

// Observe records one commit of n events.
func (b *Batches) Observe(n int) {
	for i, bound := range b.Bounds {
		if float64(n) <= bound {
			b.Counts[i]++
		}
	}
	b.Commits++
	b.Events += uint64(n)
}

// Clone returns a copy that shares nothing with b.
func (b Batches) Clone() Batches {
	b.Counts = append([]uint64(nil), b.Counts...)
	return b
}
