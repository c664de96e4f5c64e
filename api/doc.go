// Package api puts the coordinator on a socket: an HTTP/JSON server under
// /v1/ on a unix socket (and, with a bearer token, on TCP), and the
// go-retryablehttp client that sidecars, hooks and the CLI use.
//
// One table (errors.go) maps reason codes to HTTP statuses for both sides,
// so a denial crosses the socket as the same *gate.DeniedError it started
// as. The client fails closed: when the coordinator is down or answers
// garbage, a gated mutation is never reported as granted.
package api
