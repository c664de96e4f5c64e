// Package store owns the ledger contract: the append-only, durable sequence
// of gate.Events from which the lease table is rebuilt, and the errors its
// backends share.
//
// It defines the Ledger interface and nothing that implements it: backends
// live in their own packages (store/bolt, later store/etcd) and are checked
// by the one conformance suite in store/storetest. This package imports no
// database, network or file system code, and it never interprets events:
// validating them is gate's job, ordering and durability are the store's.
package store
