package etcd_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/etcd"
)

func note(who string) gate.Event {
	return gate.Event{Type: gate.EventNotice, At: time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC), Actor: who, Path: "n"}
}

// TestLostRace opens two writers on one workspace: the one that appends
// after the other without having seen it is refused with a *ConflictError,
// writes nothing, keeps being refused until it has caught up, and then
// appends after the other's events.
func TestLostRace(t *testing.T) {
	cfg := testConfig(t)
	a, b := mustOpen(t, cfg), mustOpen(t, cfg)
	ctx := context.Background()
	if _, err := a.Append(ctx, note("a"), note("a")); err != nil {
		t.Fatalf("a.Append = %v", err)
	}
	for range 2 {
		_, err := b.Append(ctx, note("b"))
		var ce *etcd.ConflictError
		if !errors.As(err, &ce) || !errors.Is(err, store.ErrConflict) || ce.Seen != 0 {
			t.Fatalf("b.Append before catching up = %v, want a *ConflictError wrapping %v with Seen 0", err, store.ErrConflict)
		}
	}
	var missed []uint64
	if err := b.CatchUp(ctx, func(e gate.Event) error { missed = append(missed, e.Seq); return nil }); err != nil {
		t.Fatalf("b.CatchUp = %v", err)
	}
	if !slices.Equal(missed, []uint64{1, 2}) || b.LastSeq() != 2 {
		t.Fatalf("b.CatchUp saw %v and LastSeq() = %d, want [1 2] and 2", missed, b.LastSeq())
	}
	got, err := b.Append(ctx, note("b"))
	if err != nil || got[0].Seq != 3 {
		t.Fatalf("b.Append after catching up = %v, %v, want seq 3", got, err)
	}
	if _, err := a.Append(ctx, note("a")); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a.Append after b's = %v, want %v", err, store.ErrConflict)
	}
	var actors []string
	if err := a.Replay(ctx, 0, func(e gate.Event) error { actors = append(actors, e.Actor); return nil }); err != nil {
		t.Fatalf("a.Replay = %v", err)
	}
	if !slices.Equal(actors, []string{"a", "a", "b"}) {
		t.Fatalf("ledger holds events of %v, want [a a b] (nothing of a refused append)", actors)
	}
}

// TestConfigValidate names what is wrong.
func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  etcd.Config
		want bool
	}{
		{etcd.Config{Endpoints: []string{"http://127.0.0.1:2379"}, Workspace: "repo"}, true},
		{etcd.Config{Workspace: "repo"}, false},
		{etcd.Config{Endpoints: []string{"http://127.0.0.1:2379"}}, false},
		{etcd.Config{Endpoints: []string{"http://127.0.0.1:2379"}, Workspace: "/repo"}, false},
		{etcd.Config{Endpoints: []string{"http://127.0.0.1:2379"}, Workspace: "repo", Retry: -1}, false},
	}
	for _, tc := range tests {
		if err := tc.cfg.Validate(); (err == nil) != tc.want {
			t.Errorf("Validate(%+v) = %v, want valid %v", tc.cfg, err, tc.want)
		}
	}
}

// TestReloadAfter: Reload from a seq hands over only the events after it,
// leaves the ledger at the head and clears a lost race.
func TestReloadAfter(t *testing.T) {
	cfg := testConfig(t)
	a, b := mustOpen(t, cfg), mustOpen(t, cfg)
	ctx := context.Background()
	if _, err := a.Append(ctx, note("a"), note("a"), note("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, note("b")); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("b.Append before catching up = %v, want %v", err, store.ErrConflict)
	}
	var got []uint64
	if err := b.Reload(ctx, 2, func(e gate.Event) error { got = append(got, e.Seq); return nil }); err != nil {
		t.Fatalf("b.Reload(2) = %v", err)
	}
	if !slices.Equal(got, []uint64{3}) || b.LastSeq() != 3 {
		t.Fatalf("b.Reload(2) read %v, LastSeq() = %d; want [3] and 3", got, b.LastSeq())
	}
	if out, err := b.Append(ctx, note("b")); err != nil || out[0].Seq != 4 {
		t.Fatalf("b.Append after Reload = %v, %v; want seq 4", out, err)
	}
	if err := b.Reload(ctx, 9, func(gate.Event) error { return nil }); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("b.Reload past the head = %v, want %v", err, store.ErrCorrupt)
	}
}
