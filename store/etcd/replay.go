package etcd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// replayPage is how many records one range read fetches.
const replayPage = 64

// Replay calls fn for every event with Seq > after, in order, up to the
// head etcd holds when Replay starts; every read is made at that one
// revision, so what is appended meanwhile is not replayed.
func (l *Ledger) Replay(ctx context.Context, after uint64, fn func(gate.Event) error) error {
	if l.closing() {
		return errClosed()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	end, rev, err := l.head(ctx)
	if err != nil || end <= after {
		return err
	}
	_, _, err = l.scan(ctx, after, end, rev, fn)
	return err
}

// head reads the head's seq and the revision it was read at.
func (l *Ledger) head(ctx context.Context) (seq uint64, rev int64, err error) {
	resp, err := l.get(ctx, l.keys.head())
	if err != nil {
		return 0, 0, fmt.Errorf("read ledger head: %w", err)
	}
	if len(resp.Kvs) == 0 {
		return 0, resp.Header.Revision, nil
	}
	seq, err = parseSeq(resp.Kvs[0].Value)
	return seq, resp.Header.Revision, err
}

// scan calls fn for the events after..end read at revision rev and returns
// the seq of the last event fn accepted and the record holding it (zero
// when fn accepted none).
func (l *Ledger) scan(ctx context.Context, after, end uint64, rev int64, fn func(gate.Event) error) (uint64, recordID, error) {
	var held recordID
	from, err := l.recordHolding(ctx, after+1, rev)
	if err != nil {
		return after, held, err
	}
	next := after + 1
	for next <= end {
		resp, err := l.get(ctx, from, clientv3.WithRange(l.keys.recordsEnd()), clientv3.WithRev(rev), clientv3.WithLimit(replayPage))
		if err != nil {
			return next - 1, held, fmt.Errorf("read ledger records from %s: %w", from, err)
		}
		if len(resp.Kvs) == 0 {
			return next - 1, held, fmt.Errorf("%w: seq %d..%d missing in etcd", store.ErrCorrupt, next, end)
		}
		for _, kv := range resp.Kvs {
			was := next
			next, err = l.replayRecord(ctx, string(kv.Key), kv.Value, kv.ModRevision, next, end, fn)
			if next > was {
				held = recordOf(kv)
			}
			if err != nil || next > end {
				return next - 1, held, err
			}
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	return next - 1, held, nil
}

// recordHolding is the key of the record that holds seq (the last record
// starting at or before it), or the first record key when there is none.
func (l *Ledger) recordHolding(ctx context.Context, seq uint64, rev int64) (string, error) {
	resp, err := l.get(ctx, l.keys.records(), clientv3.WithRange(l.keys.record(seq)+"\x00"), clientv3.WithRev(rev),
		clientv3.WithSort(clientv3.SortByKey, clientv3.SortDescend), clientv3.WithLimit(1), clientv3.WithKeysOnly())
	if err != nil {
		return "", fmt.Errorf("find the ledger record holding seq %d: %w", seq, err)
	}
	if len(resp.Kvs) == 0 {
		return l.keys.records(), nil
	}
	return string(resp.Kvs[0].Key), nil
}

// replayRecord calls fn for the events of the record committed at
// revision rev from next up to end, its grants numbered by that revision,
// and returns the seq it expects next.
func (l *Ledger) replayRecord(ctx context.Context, key string, val []byte, rev int64, next, end uint64, fn func(gate.Event) error) (uint64, error) {
	var evs []gate.Event
	if err := json.Unmarshal(val, &evs); err != nil {
		return next, fmt.Errorf("%w: record %s: %w", store.ErrCorrupt, key, err)
	}
	numberGrants(evs, rev)
	if len(evs) == 0 || l.keys.record(evs[0].Seq) != key || !strings.HasPrefix(key, l.keys.records()) {
		return next, fmt.Errorf("%w: record %s does not start with its key's seq", store.ErrCorrupt, key)
	}
	for i, e := range evs {
		if e.Seq != evs[0].Seq+uint64(i) {
			return next, fmt.Errorf("%w: record %s: seq %d at position %d", store.ErrCorrupt, key, e.Seq, i)
		}
		if e.Seq < next {
			continue
		}
		if e.Seq > next {
			return next, fmt.Errorf("%w: seq %d..%d missing before record %s", store.ErrCorrupt, next, e.Seq-1, key)
		}
		if e.Seq > end {
			return next, nil
		}
		if err := ctx.Err(); err != nil {
			return next, err
		}
		if err := fn(e.UTC()); err != nil {
			return next, fmt.Errorf("replay seq %d: %w", e.Seq, err)
		}
		next++
	}
	return next, nil
}
