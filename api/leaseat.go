package api

import (
	"context"
	"errors"

	"github.com/leasegate/leasegate/gate"
)

// LeaseFinder is what LeaseAt asks of a coordinator: a Client, or what
// stands for one.
type LeaseFinder interface {
	Leases(ctx context.Context, path string) ([]gate.Lease, error)
	History(ctx context.Context, id gate.LeaseID, path string, limit int) ([]gate.Event, error)
	GetLease(ctx context.Context, id gate.LeaseID) (gate.Lease, error)
}

// LeaseAt resolves a path to a lease, as renew, release and check-in name
// one by a path: the active lease of owner covering it (any one's when
// owner is ""), as gate.HeldLease picks it. When owner holds none there
// and an eviction or expiry ended the last of owner's leases on the path
// (gate.EndedLease), that lease is returned, so that acting on it is
// refused with its own reason (LEASE_EVICTED, LEASE_EXPIRED) as it is by
// the lease's id; otherwise gate.HeldLease's LEASE_NOT_FOUND stands.
func LeaseAt(ctx context.Context, c LeaseFinder, owner, path string) (gate.Lease, error) {
	ls, err := c.Leases(ctx, path)
	if err != nil {
		return gate.Lease{}, err
	}
	l, err := gate.HeldLease(ls, owner, path)
	if owner == "" || !errors.Is(err, gate.ErrNotFound) {
		return l, err
	}
	history, herr := c.History(ctx, gate.NoLease, path, 0)
	if herr != nil {
		return l, err
	}
	id, ok := gate.EndedLease(history, owner)
	if !ok {
		return l, err
	}
	if ended, gerr := c.GetLease(ctx, id); gerr == nil {
		return ended, nil
	}
	return l, err
}
