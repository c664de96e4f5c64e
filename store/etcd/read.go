package etcd

import (
	"context"
	"fmt"

	"github.com/leasegate/leasegate/gate"
)

// ReadAll calls fn for every event of the workspace's shared ledger, in
// order, all read at the one revision the head was read at. Unlike Open it
// does not join the cluster: it starts no session and writes nothing, so
// the coordinators sharing the ledger see no new host and keep
// committing meanwhile. It returns the seq of the last event fn accepted;
// a record that does not decode is an error wrapping store.ErrCorrupt,
// and an error of fn is returned wrapped with the event's seq.
func ReadAll(ctx context.Context, cfg Config, fn func(gate.Event) error) (uint64, error) {
	if err := cfg.Validate(); err != nil {
		return 0, fmt.Errorf("etcd ledger config: %w", err)
	}
	cfg.setDefaults()
	cli, err := newClient(ctx, cfg)
	if err != nil {
		return 0, fmt.Errorf("etcd client for %v: %w", cfg.Endpoints, err)
	}
	defer cli.Close()
	l := &Ledger{cfg: cfg, cli: cli, keys: newKeys(cfg.Workspace), log: cfg.Logger.Named("etcd-ledger")}
	end, rev, refused, err := l.headUnlessRefused(ctx)
	if refused != "" {
		return 0, fmt.Errorf("etcd at %v cannot be reached: %s", cfg.Endpoints, refused)
	}
	if err != nil {
		return 0, fmt.Errorf("etcd at %v (waited up to %v; %s): %w", cfg.Endpoints, cfg.DialTimeout, probe(cfg.Endpoints), err)
	}
	if end == 0 {
		return 0, nil
	}
	got, _, err := l.scan(ctx, 0, end, rev, fn)
	return got, err
}
