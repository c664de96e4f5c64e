// Package sidecar is `leasegate run`: it registers a worker as a lease
// owner, spawns it under the seccomp gate, answers every mutation the
// worker's process tree makes through the coordinator's contention
// protocol, heartbeats, relays notices, watches for the tree stopping
// (stop-idle) and for the worker's commits (release on commit), and ends
// the owner's leases when the worker ends.
//
// It decides nothing itself: paths are classified by the workspace rule and
// leases are decided by the coordinator. It fails closed: while the
// coordinator is unreachable a gated syscall stays held.
package sidecar
