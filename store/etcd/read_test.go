package etcd_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/etcd"
)

// TestReadAll reads a shared ledger without joining it: every event in
// order, no session (member key) of its own left behind, and a record that
// does not decode is store.ErrCorrupt naming what was read before it.
func TestReadAll(t *testing.T) {
	cfg := testConfig(t)
	cfg.Host = "host-a"
	a := mustOpen(t, cfg)
	ctx := context.Background()
	if _, err := a.Append(ctx, note("a"), note("b")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(ctx, note("c")); err != nil {
		t.Fatal(err)
	}
	reader := cfg
	reader.Host = "host-reader"
	var actors []string
	last, err := etcd.ReadAll(ctx, reader, func(e gate.Event) error { actors = append(actors, e.Actor); return nil })
	if err != nil || last != 3 || !slices.Equal(actors, []string{"a", "b", "c"}) {
		t.Fatalf("ReadAll = %d, %v, read %v; want 3, nil, [a b c]", last, err, actors)
	}
	cli := etcdClient(t, cfg)
	members, err := cli.Get(ctx, "/leasegate/"+cfg.Workspace+"/members/host-reader/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || members.Count != 0 {
		t.Fatalf("member keys of the reader's host = %v, %v; want none (ReadAll joins no session)", members, err)
	}
	if _, err := cli.Put(ctx, "/leasegate/"+cfg.Workspace+"/ledger/e/00000000000000000003", "not json"); err != nil {
		t.Fatal(err)
	}
	actors = nil
	last, err = etcd.ReadAll(ctx, reader, func(e gate.Event) error { actors = append(actors, e.Actor); return nil })
	if !errors.Is(err, store.ErrCorrupt) || last != 2 || len(actors) != 2 {
		t.Fatalf("ReadAll of a damaged record = %d, %v after %v; want 2 and %v", last, err, actors, store.ErrCorrupt)
	}
}
