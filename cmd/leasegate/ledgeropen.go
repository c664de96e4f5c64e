package main

import (
	"context"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/bolt"
	"github.com/leasegate/leasegate/store/etcd"
	"github.com/leasegate/leasegate/workspace"
)

// openLedger opens the workspace's ledger: the shared one on etcd when
// leasegate.json or LEASEGATE_CLUSTER names a cluster, else the bbolt
// file in the state directory.
func openLedger(ctx context.Context, ws *workspace.Workspace, log hclog.Logger) (store.Ledger, error) {
	if cl := ws.Config.Cluster; cl != nil {
		return etcd.Open(ctx, etcd.Config{Endpoints: cl.Endpoints, Workspace: cl.Workspace, SessionTTL: cl.TTL(), Logger: log})
	}
	return bolt.Open(ws.LedgerPath(), bolt.Config{Logger: log})
}
