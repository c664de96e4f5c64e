package api

import (
	"context"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// statusLister is a service that can give its status with the leases left
// compact (the coordinator does): the answer expands them one at a time as
// it writes them, so that a status of many leases does not hold them all
// expanded while it is sent.
type statusLister interface {
	StatusList(ctx context.Context) (leasegate.Status, gate.LeaseList, error)
}

// listedStatus is a status whose leases are in list, not in its Leases,
// which are empty (not nil: a status's leases are never null).
type listedStatus struct {
	leasegate.Status
	list gate.LeaseList
}

// nthLease is how an answer reads the i-th lease of the status it writes.
type nthLease func(i int) gate.Lease

// leasesOf returns how many leases s holds and how to read each.
func leasesOf(s leasegate.Status) (int, nthLease) {
	return len(s.Leases), func(i int) gate.Lease { return s.Leases[i] }
}

// leases returns how many leases the status holds and how to read each.
func (s listedStatus) leases() (int, nthLease) { return s.list.Len(), s.list.Lease }

// expanded is the status with its leases expanded into Leases, for an
// answer written by encoding/json.
func (s listedStatus) expanded() leasegate.Status {
	st := s.Status
	st.Leases = s.list.Leases()
	return st
}

func (s *Server) status(q *call) (any, error) {
	sl, ok := s.c.(statusLister)
	if !ok {
		return s.c.Status(q.ctx)
	}
	st, list, err := sl.StatusList(q.ctx)
	if err != nil || st.Leases != nil {
		return st, err
	}
	st.Leases = []gate.Lease{}
	return listedStatus{Status: st, list: list}, nil
}
