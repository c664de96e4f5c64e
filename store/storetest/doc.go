// Package storetest is the one conformance suite every store.Ledger backend
// passes: ordering, durability across reopen, group commit under
// concurrency, the EnqueueAck append mode the coordinator uses
// (commit order, acknowledgement after the commit and never inside
// the call, errors surfaced),
// closing and cancellation, and replay determinism of random
// but valid lease traffic into gate.Tables. AppendOnly gives a test
// double that overrides only Append that same append mode.
//
// A backend's test calls RunLedgerTests with a function that opens a fresh
// ledger. The suite talks only to store.Ledger: it must not import a
// backend, and it holds no test that only one backend could pass.
package storetest
