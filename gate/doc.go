// Package gate owns the lease model and the pure decision engine: who may
// mutate which path of a workspace, and why not.
//
// Everything here is deterministic and free of I/O. The package reads no
// clock (callers pass one now per decision), generates no randomness (callers
// fill in lease ids), and imports nothing but the standard library: no
// gopsutil, bbolt, HTTP or FUSE. The ledger events defined here are the only
// way lease state changes; Table is their projection, and Decide evaluates a
// request against a Table snapshot.
package gate
