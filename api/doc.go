// Package api puts the coordinator on a socket: an HTTP/JSON server under
// /v1/ on a unix socket (and, with a bearer token, on TCP), the stream
// protocol that GET /v1/stream upgrades a connection to for the hot-path
// calls (StreamProtocol), and the client that sidecars, hooks and the CLI
// use, which sends those calls over one stream when the coordinator offers
// it and everything else over go-retryablehttp.
//
// One table (errors.go) maps reason codes to HTTP statuses for both sides
// and both transports, so a denial crosses the socket as the same
// *gate.DeniedError it started as. The client fails closed: when the
// coordinator is down or answers garbage, a gated mutation is never
// reported as granted.
package api
