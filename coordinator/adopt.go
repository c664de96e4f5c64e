package coordinator

import (
	"fmt"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// adoptOpenBlockers holds again, for an operator, the mutations whose
// blockers the replayed ledger shows open: the coordinator that held them
// stopped (killed, or restarted) before an operator answered, and their
// workers are still halted, their sidecars waiting on the blocker. The
// blocker stays the hard stop it was: `resolve` answers the waiting
// sidecar as before the restart, a requester found gone closes it
// (aborted, with the evidence), and the file found free is said again.
// Without this the first wait found no held mutation, the sidecar asked
// for its write again from the start (granted if the file had come free
// meanwhile, with no operator's word), and the blocker stayed open in the
// book with nobody behind it, its requester shown halted.
//
// On a shared ledger a blocker belongs to the coordinator of its
// requester's machine (holdsBlocker): a restarted coordinator adopts the
// blockers of its own machine's requesters, whose sidecars wait on it,
// and leaves the others to their machines' coordinators.
func (c *Coordinator) adoptOpenBlockers() {
	for _, rep := range c.book.Open() {
		if c.holdsBlocker(rep) {
			c.held[rep.ID] = c.adoptedHold(rep)
		}
	}
}

// adoptedHold is the hold of an open blocker's mutation, as the ledger
// records it: the requester, op and paths, waiting on the holder's lease.
func (c *Coordinator) adoptedHold(rep blocker.Report) *hold {
	req := leasegate.MutateRequest{Owner: rep.Requester.Name, Op: rep.Op, Paths: rep.Paths}
	con := &contention{req: req, done: make(chan struct{}), decidedAt: c.clock.Now(),
		waitsOn: map[gate.LeaseID]bool{rep.Holder.LeaseID: true},
		view: leasegate.ContentionView{Requester: req.Owner, Paths: req.Paths, FirstDeniedAt: rep.FirstDeniedAt,
			RetryAt: rep.RetryAt, Outcome: leasegate.Blocked, BlockerID: rep.ID}}
	close(con.done)
	var holder *gate.Lease
	if l, ok := c.table.Lease(rep.Holder.LeaseID); ok {
		holder, con.view.Holder = &l, l
	}
	r := rep
	return &hold{con: con, done: make(chan struct{}),
		result: leasegate.Result{Outcome: leasegate.Blocked, Reason: rep.RetryResult, Holder: holder, Blocker: &r,
			Message: fmt.Sprintf("%s is still held by %s after the retry; blocker %s is open", gate.ShownPath(rep.Path), rep.Holder.Owner.Where(), rep.ID)}}
}
