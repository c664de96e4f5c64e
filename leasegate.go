// Package leasegate holds what every side of a coordinator shares: the
// wire types of its calls (a gated mutation, an explicit lease operation,
// an owner's registration, status, notices), the sentinel errors callers
// branch on, and Service, the one interface of what a coordinator offers.
//
// The coordinator implements Service in process, the api client over the
// socket; the sidecar, the hooks, the MCP server and the console take a
// Service (or a smaller interface of their own) and the notifier takes the
// Notice values it delivers, so no client-side package imports the
// coordinator.
//
// The package decides nothing and does no I/O: it imports only gate,
// blocker and the standard library (enforced by deps_test.go).
package leasegate
