package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/etcd"
)

// TestTokensAreCommitRevisions grants through two writers of one ledger,
// each in turn after catching up with the other, and checks every grant's
// token against etcd itself: the revision at which its record was
// written, with the grant's place among the record's grants below it.
func TestTokensAreCommitRevisions(t *testing.T) {
	cfg := testConfig(t)
	cfg.Host = "host-a"
	a := mustOpen(t, cfg)
	cfg.Host = "host-b"
	b := mustOpen(t, cfg)
	ctx := context.Background()
	cli := etcdClient(t, cfg)
	var last uint64
	for i, w := range []*etcd.Ledger{a, b, a, b} {
		if err := w.CatchUp(ctx, func(gate.Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
		// One Append with nothing else queued is one record.
		out, err := w.Append(ctx, grant(fmt.Sprintf("w%d-1.go", i)), note("between"), grant(fmt.Sprintf("w%d-2.go", i)))
		if err != nil {
			t.Fatalf("writer %d: Append = %v", i, err)
		}
		kv, err := cli.Get(ctx, fmt.Sprintf("/leasegate/%s/ledger/e/%020d", cfg.Workspace, out[0].Seq))
		if err != nil || len(kv.Kvs) != 1 {
			t.Fatalf("writer %d: record %d: %v, %v", i, out[0].Seq, kv, err)
		}
		rev := kv.Kvs[0].ModRevision
		for place, e := range []gate.Event{out[0], out[2]} {
			tok := e.Lease.FencingToken
			if want := etcd.FencingToken(rev, place); tok != want {
				t.Errorf("writer %d, grant seq %d: token %d, want %d (revision %d, grant %d of its commit)", i, e.Seq, tok, want, rev, place)
			}
			if got := etcd.TokenRevision(tok); got != rev {
				t.Errorf("TokenRevision(%d) = %d, want %d", tok, got, rev)
			}
			if tok <= last {
				t.Errorf("writer %d, grant seq %d: token %d after %d, want increasing across writers", i, e.Seq, tok, last)
			}
			last = tok
		}
	}
}

// grant is an auto lease of alice on path, with a token the ledger is to
// replace.
func grant(path string) gate.Event {
	l := &gate.Lease{ID: "01JGRANT000000000000000000", Owner: gate.Owner{Name: "alice"}, Kind: gate.KindAuto,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{path}}, State: gate.StateActive, FencingToken: 99}
	return gate.Event{Type: gate.EventGranted, Actor: "alice", Lease: l}
}

// TestTooManyGrantsForOneCommit refuses one Append of more grants than a
// commit can number, writing nothing, and commits the next.
func TestTooManyGrantsForOneCommit(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxBatchBytes = 512 << 20
	l := mustOpen(t, cfg)
	evs := make([]gate.Event, 1<<20)
	for i := range evs {
		evs[i] = grant("many.go")
	}
	if _, err := l.Append(context.Background(), evs...); err == nil || errors.Is(err, store.ErrClosed) {
		t.Fatalf("Append of %d grants = %v, want a refusal", len(evs), err)
	}
	if out, err := l.Append(context.Background(), note("next")); err != nil || out[0].Seq != 1 {
		t.Fatalf("the next Append = %v, %v; want seq 1", out, err)
	}
}
