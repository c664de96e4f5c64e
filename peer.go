package leasegate

import (
	"context"
	"sync"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// Connection is one accepted unix connection's peer, shared by every
// request and stream call that came in on it: the peer of a connection
// never changes, so what is learnt about it once holds for them all.
type Connection struct {
	Peer     gate.Peer
	Accepted time.Time // wall clock, to compare with process start times

	once sync.Once
	memo any
}

// Memo returns what fn returns, calling fn on the first call only. The
// coordinator keeps the peer's ancestry here, read from /proc once per
// connection rather than once per request.
func (c *Connection) Memo(fn func() any) any {
	c.once.Do(func() { c.memo = fn() })
	return c.memo
}

// connectionKey carries a *Connection in a context.
type connectionKey struct{}

// WithPeer returns ctx carrying the peer of the connection a request came
// in on. The API server calls it once per accepted unix connection and
// every request and stream call of that connection inherits it; the
// coordinator's calls that act for an owner or an operator read it.
func WithPeer(ctx context.Context, p gate.Peer) context.Context {
	return context.WithValue(ctx, connectionKey{}, &Connection{Peer: p, Accepted: time.Now()})
}

// PeerOf returns the peer WithPeer put in ctx, and false when there is
// none: a caller in the coordinator's process (tests, the demo) or a TCP
// connection, whose bearer token is its only credential.
func PeerOf(ctx context.Context) (gate.Peer, bool) {
	c := ConnectionOf(ctx)
	if c == nil {
		return gate.Peer{}, false
	}
	return c.Peer, true
}

// ConnectionOf returns the connection WithPeer put in ctx, or nil.
func ConnectionOf(ctx context.Context) *Connection {
	c, _ := ctx.Value(connectionKey{}).(*Connection)
	return c
}
