package coordinator

import (
	"context"

	"github.com/leasegate/leasegate/gate"
)

// peerKey carries the caller's gate.Peer in a context.
type peerKey struct{}

// WithPeer returns ctx carrying the peer of the connection a request came
// in on. The API server sets it for every request and stream call on the
// unix socket; the coordinator's calls that act for an owner or an
// operator read it with PeerOf.
func WithPeer(ctx context.Context, p gate.Peer) context.Context {
	return context.WithValue(ctx, peerKey{}, p)
}

// PeerOf returns the peer WithPeer put in ctx, and false when there is
// none: a caller in this process (tests, the demo) or a TCP connection,
// whose bearer token is its only credential.
func PeerOf(ctx context.Context) (gate.Peer, bool) {
	p, ok := ctx.Value(peerKey{}).(gate.Peer)
	return p, ok
}
