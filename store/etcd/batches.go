package etcd

import "github.com/leasegate/leasegate/store"

var _ store.Batcher = (*Ledger)(nil)

// Batches reports how many events each commit carried since the ledger
// opened: the group commit's batch sizes.
func (l *Ledger) Batches() store.Batches {
	l.batchMu.Lock()
	defer l.batchMu.Unlock()
	return l.batches.Clone()
}

// observe records one commit of n events.
func (l *Ledger) observe(n int) {
	l.batchMu.Lock()
	defer l.batchMu.Unlock()
	l.batches.Observe(n)
}
