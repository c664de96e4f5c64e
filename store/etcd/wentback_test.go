package etcd_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/etcdtest"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/etcd"
)

// TestCatchUpRefusesALedgerThatWentBack: etcd is restored from a backup
// taken after seq 2, while writer a had read up to seq 4; a writer opened
// afterwards commits seqs 3 to 8 on the restored ledger, past a's. a's
// catch-up is refused with a *WentBackError (it read seqs 5 to 8 onto its
// own 3 and 4, which the ledger no longer holds), a's appends too, and a
// reload from the first event gives the ledger as etcd holds it, after
// which a appends again.
func TestCatchUpRefusesALedgerThatWentBack(t *testing.T) {
	requireEtcd(t)
	cluster, err := etcdtest.Start(t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	cfg := testConfig(t)
	cfg.Endpoints = cluster.Endpoints
	ctx := context.Background()
	a := mustOpen(t, cfg)
	mustAppend(t, a, note("a"), note("a"))
	backup, err := cluster.BackupMember(0)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, a, note("a"))
	mustAppend(t, a, note("a"))
	if err := cluster.RestoreMember(0, backup); err != nil {
		t.Fatal(err)
	}
	c := mustOpen(t, cfg)
	for range 3 {
		mustAppend(t, c, note("c"), note("c"))
	}
	err = a.CatchUp(ctx, func(gate.Event) error { return nil })
	var wb *etcd.WentBackError
	if !errors.As(err, &wb) || !errors.Is(err, store.ErrWentBack) || wb.Seen != 4 || wb.Ends != 8 {
		t.Fatalf("a.CatchUp after the restore = %v, want a *WentBackError wrapping %v, seen 4, ends 8", err, store.ErrWentBack)
	}
	if _, err := a.Append(ctx, note("a")); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a.Append after the ledger went back = %v, want %v", err, store.ErrConflict)
	}
	var actors []string
	if err := a.Reload(ctx, 0, func(e gate.Event) error { actors = append(actors, e.Actor); return nil }); err != nil {
		t.Fatalf("a.Reload(0) = %v", err)
	}
	if want := []string{"a", "a", "c", "c", "c", "c", "c", "c"}; !slices.Equal(actors, want) {
		t.Fatalf("a.Reload(0) read events of %v, want %v", actors, want)
	}
	if got, err := a.Append(ctx, note("a")); err != nil || got[0].Seq != 9 {
		t.Fatalf("a.Append after reloading = %v, %v, want seq 9", got, err)
	}
}

func mustAppend(t *testing.T, l *etcd.Ledger, evs ...gate.Event) {
	t.Helper()
	if _, err := l.Append(context.Background(), evs...); err != nil {
		t.Fatalf("Append = %v", err)
	}
}
