package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/etcd"
	"github.com/leasegate/leasegate/workspace"
)

// errRefused marks an event of the shared ledger that the lease table or
// the blocker book refuses after the ones before it, as a starting
// coordinator would.
var errRefused = errors.New("refused by the lease table")

// sharedCheckReport is what `ledger check --json` prints for a ledger
// shared on etcd.
type sharedCheckReport struct {
	Store     string   `json:"store"`
	Endpoints []string `json:"endpoints"`
	Workspace string   `json:"workspace"`
	Readable  uint64   `json:"readable_events"`
	Damage    []string `json:"damage"`
}

// ledgerShared runs `ledger check` or `ledger recover` on a workspace
// whose ledger is shared on etcd (named by leasegate.json or
// LEASEGATE_CLUSTER). check reads it the way a starting
// coordinator does, without joining the cluster; recover refuses: the
// bbolt file it rebuilds is not this workspace's ledger, and etcd keeps
// its own copies of the shared one.
func ledgerShared(ctx context.Context, f common, cmd string, ws *workspace.Workspace) error {
	cl := ws.Config.Cluster
	where := fmt.Sprintf("etcd workspace %q at %s", cl.Workspace, strings.Join(cl.Endpoints, ","))
	if cmd == "recover" {
		return usagef("ledger recover: this workspace's ledger is shared on the %s (%s), not a file here; "+
			"recover rebuilds only a local bbolt ledger. etcd replicates the shared one: restore a damaged cluster from an etcd snapshot",
			where, ws.Ledger().Source())
	}
	r := sharedCheckReport{Store: "etcd", Endpoints: cl.Endpoints, Workspace: cl.Workspace, Damage: []string{}}
	table, book := gate.NewTable(), blocker.NewBook()
	last, err := etcd.ReadAll(ctx, etcd.Config{Endpoints: cl.Endpoints, Workspace: cl.Workspace}, func(e gate.Event) error {
		if err := errors.Join(table.Apply(e), book.Apply(e)); err != nil {
			return fmt.Errorf("%w: %w", errRefused, err)
		}
		return nil
	})
	r.Readable = last
	if err != nil {
		if !errors.Is(err, store.ErrCorrupt) && !errors.Is(err, errRefused) {
			return fmt.Errorf("ledger check: %s: %w", where, err)
		}
		r.Damage = append(r.Damage, err.Error())
	}
	if f.jsonOut {
		if err := printJSON(r); err != nil {
			return err
		}
	} else {
		printSharedCheck(where, r)
	}
	if len(r.Damage) > 0 {
		return &exitStatus{code: exitError}
	}
	return nil
}

func printSharedCheck(where string, r sharedCheckReport) {
	fmt.Printf("%s: %d events readable\n", where, r.Readable)
	for _, d := range r.Damage {
		fmt.Println("damage:", d)
	}
	if len(r.Damage) == 0 {
		fmt.Println("ok: the coordinators start on this ledger")
		return
	}
	fmt.Println("the coordinators refuse this ledger from the damage on; `ledger recover` does not apply to a ledger on etcd")
}
