// Package console is the operator's live web page and the Prometheus
// metrics of a coordinator: owners with their liveness, the leases as a
// tree of the workspace, contention with its retry countdown, open
// blockers with Retry/Deny/Abort, a path's history and ungated writes.
//
// It is an adapter over the coordinator's API (Service, which *api.Client
// satisfies): it reads the status snapshot and follows the ledger's event
// stream, and acts only as `leasegate resolve` does. It never imports the
// coordinator's internals, and it serves nothing without a session that
// began with the one-time login token; beyond loopback, nothing but over
// TLS and to a session whose login also presented the admin token.
package console
