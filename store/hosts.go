package store

// HostGone is a host none of whose coordinators holds a session on a
// shared ledger any more, as a ledger with sessions (store/etcd) reports
// it.
type HostGone struct {
	Host string
	// Revision is the store's revision at which the host was found gone:
	// the end of its last session, or, with AtStart, the read of the
	// sessions when the watch began.
	Revision int64
	// AtStart is set for a host that had no session already when the
	// watch began: its last session ended before then, at a time the
	// store does not record.
	AtStart bool
}
