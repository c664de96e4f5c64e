package bolt

import "github.com/leasegate/leasegate/store"

// Batches reports how many events each commit carried since the ledger
// opened: the group commit's batch sizes.
func (l *Ledger) Batches() store.Batches {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.batches.Clone()
}
