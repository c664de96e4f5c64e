package coordinator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// peerKey carries the caller's *peerConn in a context.
type peerKey struct{}

// peerConn is one connection's peer and, once read, its ancestry: the
// peer of a connection never changes, and its ancestors can only leave
// the chain (a process is re-parented to a subreaper or init above it),
// never join it, so one walk serves every request of the connection.
type peerConn struct {
	peer     gate.Peer
	accepted time.Time // wall clock, to compare with /proc create times

	once  sync.Once
	chain []liveness.Proc
	err   error
}

// WithPeer returns ctx carrying the peer of the connection a request came
// in on. The API server calls it once per accepted unix connection and
// every request and stream call of that connection inherits it; the
// coordinator's calls that act for an owner or an operator read it (see
// PeerOf and caller.go).
func WithPeer(ctx context.Context, p gate.Peer) context.Context {
	return context.WithValue(ctx, peerKey{}, &peerConn{peer: p, accepted: time.Now()})
}

// PeerOf returns the peer WithPeer put in ctx, and false when there is
// none: a caller in this process (tests, the demo) or a TCP connection,
// whose bearer token is its only credential.
func PeerOf(ctx context.Context) (gate.Peer, bool) {
	pc := peerConnOf(ctx)
	if pc == nil {
		return gate.Peer{}, false
	}
	return pc.peer, true
}

func peerConnOf(ctx context.Context) *peerConn {
	pc, _ := ctx.Value(peerKey{}).(*peerConn)
	return pc
}

// ancestry returns the peer and its ancestors, nearest first, reading
// /proc on the first call only. A peer the coordinator cannot see (pid 0),
// that has exited, or whose pid now belongs to a process started after
// the connection was accepted has no ancestry: an error.
func (pc *peerConn) ancestry() ([]liveness.Proc, error) {
	pc.once.Do(func() {
		if pc.peer.PID <= 0 {
			pc.err = fmt.Errorf("the connecting process is not visible in the coordinator's pid namespace (SO_PEERCRED pid 0)")
			return
		}
		pc.chain, pc.err = liveness.Ancestry(pc.peer.PID)
		if pc.err == nil && time.UnixMilli(pc.chain[0].StartTime).After(pc.accepted.Add(liveness.StartSlack)) {
			pc.chain, pc.err = nil, fmt.Errorf("pid %d started after it connected: the connecting process exited", pc.peer.PID)
		}
		if pc.err != nil {
			pc.err = fmt.Errorf("cannot identify the connecting process: %w", pc.err)
		}
	})
	return pc.chain, pc.err
}
