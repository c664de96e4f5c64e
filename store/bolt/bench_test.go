package bolt_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store/bolt"
)

// benchGoroutines are the client counts of the quality bar: one, and 16
// clients on a 2-core machine.
var benchGoroutines = []int{1, 16}

// runPairs runs b.N operations spread over n goroutines and reports
// acquire+release pairs per second.
func runPairs(b *testing.B, n int, op func(tok uint64) error) {
	var next atomic.Uint64
	b.ResetTimer()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for tok := next.Add(1); tok <= uint64(b.N); tok = next.Add(1) {
				if err := op(tok); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}

// BenchmarkAppend is the ledger as the coordinator uses it: durable (fsync
// on), one Append of a grant and its release per op, group-committed.
func BenchmarkAppend(b *testing.B) {
	for _, n := range benchGoroutines {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			l := mustOpen(b, tempLedgerPath(b), bolt.DefaultConfig())
			runPairs(b, n, func(tok uint64) error {
				_, err := l.Append(context.Background(), pair(tok)...)
				return err
			})
		})
	}
}

// BenchmarkAppendUpdatePerOp is the baseline without group commit: the
// same events and file layout, one bbolt Update (and fsync) per pair.
func BenchmarkAppendUpdatePerOp(b *testing.B) {
	benchBbolt(b, func(db *bbolt.DB, evs []gate.Event) error {
		return db.Update(func(tx *bbolt.Tx) error { return putEvents(tx, evs) })
	})
}

// BenchmarkAppendDBBatch is bbolt's own db.Batch with its default 10 ms
// MaxBatchDelay: batches wait for a timer instead of the previous commit.
func BenchmarkAppendDBBatch(b *testing.B) {
	benchBbolt(b, func(db *bbolt.DB, evs []gate.Event) error {
		return db.Batch(func(tx *bbolt.Tx) error { return putEvents(tx, evs) })
	})
}

// BenchmarkAppendBboltGroup is group commit straight into bbolt, as this
// package did before the journal: one goroutine commits everything queued
// in one Update (page writes and two fsyncs) and starts the next at once.
func BenchmarkAppendBboltGroup(b *testing.B) {
	benchBbolt(b, func(db *bbolt.DB, evs []gate.Event) error {
		return groupCommitter(db).append(evs)
	})
}

// groupCall is one append waiting for the group committer.
type groupCall struct {
	evs  []gate.Event
	done chan error
}

// group is a minimal group committer over one bbolt file.
type group struct {
	calls chan groupCall
	ended chan struct{}
}

var (
	groupsMu sync.Mutex
	groups   = map[*bbolt.DB]*group{}
)

// groupCommitter returns db's committer, started on first use; stopGroup
// ends it.
func groupCommitter(db *bbolt.DB) *group {
	groupsMu.Lock()
	defer groupsMu.Unlock()
	if g := groups[db]; g != nil {
		return g
	}
	g := &group{calls: make(chan groupCall, 1024), ended: make(chan struct{})}
	groups[db] = g
	go g.run(db)
	return g
}

func stopGroup(db *bbolt.DB) {
	groupsMu.Lock()
	g := groups[db]
	delete(groups, db)
	groupsMu.Unlock()
	if g != nil {
		close(g.calls)
		<-g.ended
	}
}

func (g *group) append(evs []gate.Event) error {
	c := groupCall{evs: evs, done: make(chan error, 1)}
	g.calls <- c
	return <-c.done
}

func (g *group) run(db *bbolt.DB) {
	defer close(g.ended)
	for first := range g.calls {
		batch := []groupCall{first}
		for more := true; more; {
			select {
			case c, ok := <-g.calls:
				if ok {
					batch = append(batch, c)
				}
				more = ok
			default:
				more = false
			}
		}
		err := db.Update(func(tx *bbolt.Tx) error {
			for _, c := range batch {
				if err := putEvents(tx, c.evs); err != nil {
					return err
				}
			}
			return nil
		})
		for _, c := range batch {
			c.done <- err
		}
	}
}

func benchBbolt(b *testing.B, write func(*bbolt.DB, []gate.Event) error) {
	for _, n := range benchGoroutines {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			db, err := bbolt.Open(filepath.Join(b.TempDir(), "baseline.db"), 0o600, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			defer stopGroup(db)
			if err := db.Update(func(tx *bbolt.Tx) error { _, err := tx.CreateBucket([]byte("events")); return err }); err != nil {
				b.Fatal(err)
			}
			runPairs(b, n, func(tok uint64) error { return write(db, pair(tok)) })
		})
	}
}

func putEvents(tx *bbolt.Tx, evs []gate.Event) error {
	bk := tx.Bucket([]byte("events"))
	for _, e := range evs {
		seq, err := bk.NextSequence()
		if err != nil {
			return err
		}
		e.Seq = seq
		v, err := json.Marshal(&e)
		if err != nil {
			return err
		}
		if err := bk.Put(key64(seq), v); err != nil {
			return err
		}
	}
	return nil
}

func key64(seq uint64) []byte {
	k := make([]byte, 8)
	for i := range k {
		k[i] = byte(seq >> (56 - 8*i))
	}
	return k
}

// BenchmarkMakeRoom is the check the coordinator makes before it decides
// each mutation: a grant and its release far from the segment's end.
func BenchmarkMakeRoom(b *testing.B) {
	l := mustOpen(b, tempLedgerPath(b), bolt.DefaultConfig())
	evs := pair(1)
	b.ReportAllocs()
	for b.Loop() {
		if err := l.MakeRoom(evs...); err != nil {
			b.Fatal(err)
		}
	}
}
