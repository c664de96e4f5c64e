package etcd

import (
	"fmt"

	"github.com/leasegate/leasegate/gate"
)

// grantBits is how many low bits of a fencing token number a grant within
// its commit. A commit is one etcd transaction, so all its grants share
// one revision; etcd itself numbers the writes of a transaction the same
// way, as a sub-revision under the main one.
const grantBits = 20

// maxGrantsPerCommit bounds the grants of one commit so that their
// numbers fit under grantBits. It is far above what a commit holds: one
// request grants at most gate.MaxPaths leases, and a batch of several is
// cut at MaxBatchBytes, where a grant takes well over 100 bytes.
const maxGrantsPerCommit = 1<<grantBits - 1

// FencingToken is the token of the i-th grant (from 0) of the commit made
// at etcd revision rev: the revision in the high bits, i in the low
// grantBits. Tokens so made increase with the revision, which every
// coordinator's commit raises, so they are monotonic across the cluster.
func FencingToken(rev int64, i int) uint64 { return uint64(rev)<<grantBits | uint64(i) }

// TokenRevision is the etcd revision of the commit that granted the lease
// with token tok.
func TokenRevision(tok uint64) int64 { return int64(tok >> grantBits) }

// NumbersGrants reports that this ledger fixes each grant's fencing token
// when it commits it (store.GrantNumberer): the token a grant is queued
// with is replaced by FencingToken(revision of the commit, its place
// among the commit's grants).
func (l *Ledger) NumbersGrants() bool { return true }

// unnumbered returns e as the record stores it: a grant without a token,
// since the revision that gives it is not known before the commit. The
// lease is copied; the caller's stays as it was.
func unnumbered(e gate.Event) gate.Event {
	if e.Type == gate.EventGranted && e.Lease != nil {
		l := *e.Lease
		l.FencingToken = 0
		e.Lease = &l
	}
	return e
}

// numberGrants sets the tokens of the grants among evs, the events of one
// record committed at revision rev, counting from the record's first
// event; evs and their leases belong to the caller.
func numberGrants(evs []gate.Event, rev int64) {
	i := 0
	for _, e := range evs {
		if e.Type == gate.EventGranted && e.Lease != nil {
			e.Lease.FencingToken = FencingToken(rev, i)
			i++
		}
	}
}

// errTooManyGrants refuses a single append of more grants than one commit
// can number.
func errTooManyGrants(n int) error {
	return fmt.Errorf("etcd ledger: %d grants in one append, over the %d one commit can number", n, maxGrantsPerCommit)
}
