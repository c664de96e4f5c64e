// Package coordinator is the service behind `leasegate serve`: it owns a
// workspace's ledger and lease table, runs the liveness evaluator and the
// scheduler, and carries out the contention protocol (heartbeat, one retry
// after 180 s, blocker report and hold) and every release rule (commit,
// worker end, stop-idle, reclaim of dead owners, expiry).
//
// It is the only writer of its store. It speaks Go, not HTTP: package api
// puts it on a socket. Decisions are made by gate.Decide under one mutex;
// their events are applied to the in-memory table at once and made durable
// by one writer goroutine in decision order, and no caller is answered
// before its events are on disk.
package coordinator
