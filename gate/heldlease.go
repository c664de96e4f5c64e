package gate

import (
	"fmt"
	"strings"
)

// HeldLease picks, from the active leases that cover path, the one owner
// holds (any one when owner is ""). It is how renew, release and check-in
// name a lease by a path: LEASE_NOT_FOUND when no lease covers the path,
// OWNER_MISMATCH naming the holder when only others' leases do (the same
// answer as for that lease's id), INPUT_SCHEMA_INVALID when owner holds
// several (a lease id tells them apart).
func HeldLease(covering []Lease, owner, path string) (Lease, error) {
	var mine []Lease
	for _, l := range covering {
		if owner == "" || l.HeldBy(owner) {
			mine = append(mine, l)
		}
	}
	of := ""
	if owner != "" {
		of = " of " + owner
	}
	switch {
	case len(mine) == 1:
		return mine[0], nil
	case len(mine) > 1:
		return Lease{}, &DeniedError{Reason: ReasonInputInvalid,
			Message: fmt.Sprintf("%d leases%s cover %s; give a lease id", len(mine), of, ShownPath(path))}
	case len(covering) == 1:
		return Lease{}, &DeniedError{Reason: ReasonOwnerMismatch, Holder: &covering[0],
			Message: fmt.Sprintf("no active lease%s covers %s", of, ShownPath(path))}
	case len(covering) > 1:
		holders := make([]string, len(covering))
		for i, l := range covering {
			holders[i] = fmt.Sprintf("%s (lease %s)", l.Owner.Name, l.ID)
		}
		return Lease{}, &DeniedError{Reason: ReasonOwnerMismatch,
			Message: fmt.Sprintf("no active lease%s covers %s: it is held by %s", of, ShownPath(path), strings.Join(holders, ", "))}
	}
	return Lease{}, &DeniedError{Reason: ReasonNotFound, Message: fmt.Sprintf("no active lease%s covers %s", of, ShownPath(path))}
}

// EndedLease picks, from a path's history (oldest first, as the ledger
// keeps it), the lease of owner's that covered the path and was ended last
// by eviction or expiry: the two ends the owner did not make, which a
// later check-in, renewal or release by the path must report as such
// (LEASE_EVICTED, LEASE_EXPIRED) rather than as LEASE_NOT_FOUND. It
// reports false when owner has no such lease, or when a lease of owner's
// was granted on the path after it (that one, ended or not, is the one
// the owner means).
func EndedLease(history []Event, owner string) (LeaseID, bool) {
	mine := map[LeaseID]bool{}
	var last LeaseID
	for _, e := range history {
		switch e.Type {
		case EventGranted:
			if e.Lease != nil && e.Lease.HeldBy(owner) {
				mine[e.Lease.ID] = true
				last = NoLease
			}
		case EventEvicted, EventExpired:
			if mine[e.LeaseID] {
				last = e.LeaseID
			}
		}
	}
	return last, last != NoLease
}
