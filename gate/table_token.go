package gate

// SetToken gives the lease id the fencing token its commit fixed. A
// ledger shared by several coordinators numbers grants itself (store/etcd:
// from the revision of the commit), so a coordinator learns a grant's
// token only once its decision is durable, after the grant is in its
// table under the number the table gave it. The token set is above every
// token the table held when the grant was decided (the commit came after
// theirs), and the grants the table numbers from now on follow the
// highest token it holds. It reports whether the table holds the lease.
func (t *Table) SetToken(id LeaseID, token uint64) bool {
	s, ok := t.slotOf(id)
	if !ok {
		return false
	}
	t.rec(s).token = token
	t.lastToken = max(t.lastToken, token)
	return true
}
