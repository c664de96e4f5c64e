package etcd_test

import (
	"context"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store/etcd"
)

// TestBehind: a writer whose head watch reported only its own commits is
// not Behind; once another writer commits it is, until it has caught up;
// a watch just started counts as Behind until the next CatchUp.
func TestBehind(t *testing.T) {
	a, b, ctx, changes := watchedPair(t, testConfig(t))
	if !a.Behind() {
		t.Fatal("Behind() = false with a head watch just started, want true until a CatchUp")
	}
	catchUp := func() {
		t.Helper()
		if err := a.CatchUp(ctx, func(gate.Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	catchUp()
	if a.Behind() {
		t.Fatal("Behind() = true after CatchUp, want false")
	}
	for range 3 {
		if _, err := a.Append(ctx, note("a")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Append(ctx, note("b")); err == nil {
		t.Fatal("b appended without having seen a's events")
	}
	if err := b.CatchUp(ctx, func(gate.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	settle := time.Now().Add(time.Second) // a's own commits reach its watch meanwhile
	for time.Now().Before(settle) {
		if a.Behind() {
			t.Fatal("Behind() = true with only its own commits reported, want false")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := b.Append(ctx, note("b")); err != nil {
		t.Fatal(err)
	}
	for !a.Behind() {
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatal("Behind() stayed false after another writer committed")
		}
	}
	catchUp()
	if a.Behind() || a.LastSeq() != 4 {
		t.Fatalf("after catching up Behind() = true or LastSeq() = %d, want false and 4", a.LastSeq())
	}
}

// watchedPair opens two writers of cfg's ledger and starts a's head watch,
// its first signal taken; ctx ends with the test or after 30 s.
func watchedPair(t *testing.T, cfg etcd.Config) (a, b *etcd.Ledger, ctx context.Context, changes <-chan struct{}) {
	t.Helper()
	a, b = mustOpen(t, cfg), mustOpen(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	changes = a.Changes(ctx)
	<-changes
	return a, b, ctx, changes
}
