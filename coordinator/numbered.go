package coordinator

import (
	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
)

// numbering follows the grants whose fencing token the ledger fixes at
// commit (store.GrantNumberer: store/etcd numbers a grant by the revision
// of its commit, the one order every coordinator sharing the ledger
// agrees on). The table holds a grant from its decision on, under the
// number it gave it; once the commit is published the grant takes the
// ledger's token, and until then a lease shown to anyone carries token 0:
// not yet fixed. A grant's own requester is answered only after that, so
// the token it gets is the one every table holds and renew, release and
// check-in ask for.
type numbering struct {
	on      bool
	pending map[gate.LeaseID]struct{} // own grants queued and not yet published
}

func newNumbering(l store.Ledger) numbering {
	n, ok := l.(store.GrantNumberer)
	if !ok || !n.NumbersGrants() {
		return numbering{}
	}
	return numbering{on: true, pending: make(map[gate.LeaseID]struct{})}
}

// queued notes the grants among evs as waiting for their tokens. Call with
// c.mu held.
func (c *Coordinator) queuedForNumbers(evs []gate.Event) {
	if !c.numbers.on {
		return
	}
	for _, e := range evs {
		if e.Type == gate.EventGranted {
			c.numbers.pending[e.Lease.ID] = struct{}{}
		}
	}
}

// takeNumbers gives this coordinator's committed grants the tokens the
// ledger fixed, in the table the decisions are made on. The writer calls
// it in commit order, before it answers their requesters.
func (c *Coordinator) takeNumbers(evs []gate.Event) {
	if !c.numbers.on {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range evs {
		if e.Type == gate.EventGranted {
			c.table.SetToken(e.Lease.ID, e.Lease.FencingToken)
			delete(c.numbers.pending, e.Lease.ID)
		}
	}
}

// forgetNumbers drops the pending grants when the table is rebuilt from
// the ledger: those committed came back with their tokens, the others
// were refused. Call with c.mu held.
func (c *Coordinator) forgetNumbers() {
	if c.numbers.on {
		clear(c.numbers.pending)
	}
}

// shownTokens gives each lease the token it has now: the one the ledger
// fixed, or 0 while its commit is on its way. Leases copied out of the
// table or a decision before their commit was published are brought up
// to date. Call with c.mu held.
func (c *Coordinator) shownTokens(ls []gate.Lease) []gate.Lease {
	if !c.numbers.on {
		return ls
	}
	for i := range ls {
		c.shownToken(&ls[i])
	}
	return ls
}

// shownToken is shownTokens for one lease; nil is left alone.
func (c *Coordinator) shownToken(l *gate.Lease) {
	switch {
	case !c.numbers.on || l == nil:
	case c.pendingNumber(l.ID):
		l.FencingToken = 0
	default:
		if cur, ok := c.table.Lease(l.ID); ok {
			l.FencingToken = cur.FencingToken
		}
	}
}

func (c *Coordinator) pendingNumber(id gate.LeaseID) bool {
	_, ok := c.numbers.pending[id]
	return ok
}

// answerTokens is shownTokens for an answer made after its commit was
// durable, outside c.mu; it locks only where the ledger numbers grants.
func (c *Coordinator) answerTokens(ls []gate.Lease, holders ...*gate.Lease) []gate.Lease {
	if !c.numbers.on {
		return ls
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range holders {
		c.shownToken(h)
	}
	return c.shownTokens(ls)
}

// answerLeaseTokens is answerTokens for every lease a lease operation's
// answer shows.
func (c *Coordinator) answerLeaseTokens(res *leasegate.LeaseResult) {
	if !c.numbers.on {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d := &res.Decision
	c.shownToken(d.Holder)
	c.shownToken(d.Lease)
	c.shownTokens(d.Conflicts)
	c.shownTokens(d.Covered)
	c.shownTokens(res.Leases)
}
