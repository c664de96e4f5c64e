package coordinator

import (
	"sync"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// committedFold is the lease table and blocker book of a shared ledger
// folded from committed events only, in ledger order: this coordinator's
// own once their commit is published, the others' as they are caught up
// with. The coordinator's working table also holds its decisions still in
// flight; when the ledger refuses them (another coordinator committed
// first) the working table is replaced by a clone of this one, brought up
// to date with what was committed since, instead of by a replay of the
// whole ledger.
type committedFold struct {
	mu       sync.Mutex
	table    *gate.Table
	book     *blocker.Book
	keepEnds int // KeepEnded: ended leases are bounded as in the working table
}

func newCommittedFold(table *gate.Table, book *blocker.Book, keepEnds int) *committedFold {
	return &committedFold{table: table.Clone(), book: book.Clone(), keepEnds: keepEnds}
}

// fold applies the committed events that directly follow what the fold
// holds; it skips those it holds already and, once one is missing (an
// event of another coordinator not caught up with yet), the rest: the
// next rebuild reads them from the ledger.
func (f *committedFold) fold(evs []gate.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range evs {
		if e.Seq != f.table.LastSeq()+1 {
			continue
		}
		if f.apply(e) != nil {
			return
		}
	}
}

// apply folds one event; call with mu held.
func (f *committedFold) apply(e gate.Event) error {
	if err := f.table.Apply(e); err != nil {
		return err
	}
	if err := f.book.Apply(e); err != nil {
		return err
	}
	if f.table.Ended() > 2*f.keepEnds {
		f.table.PruneExcess(f.keepEnds)
	}
	return nil
}

// publishCommitted folds this coordinator's committed events, gives its
// grants the tokens the ledger fixed, then publishes them; the writer
// calls it in commit order.
func (c *Coordinator) publishCommitted(evs []gate.Event) {
	if c.committed != nil {
		c.committed.fold(evs)
	}
	c.takeNumbers(evs)
	c.published(evs)
}
