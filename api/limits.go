package api

import (
	"context"
	"net"
	"strconv"
	"sync"
	"time"
)

// Limits on what connections may hold in the coordinator, so that many
// connections that send a frame's header and stall cannot exhaust its
// memory (the coordinator runs with a soft limit of 40 MiB).
const (
	// MaxConns is how many connections a server holds at once over all
	// its listeners; the next ones are closed as soon as they are
	// accepted. Each costs about 20 KiB (goroutine, buffers) while it
	// waits: 1,024 of them, 20 MiB. Server.LimitConns lowers it where the
	// open-files limit leaves room for fewer.
	MaxConns = 1024
	// MaxConnsPerPeer is how many of them one process (SO_PEERCRED pid on
	// the unix socket, the address on TCP) may hold. A sidecar uses one
	// stream and an HTTP connection per held write that waits, so well
	// under it.
	MaxConnsPerPeer = 128
	// FrameTimeout is how long a stream frame may take to arrive once its
	// first byte has: a stalled frame closes its connection. An idle
	// stream (between frames) has no deadline.
	FrameTimeout = 10 * time.Second
	// FrameMemory bounds the bytes of stream frames read and not yet
	// answered, over all connections. A frame takes its share as its bytes
	// arrive, never before, and gives it back once answered; a frame that
	// cannot get it within FrameTimeout closes its connection.
	FrameMemory = 16 << 20
	// maxHeaderBytes bounds an HTTP request's header (net/http's default
	// is 1 MiB a connection).
	maxHeaderBytes = 64 << 10
	// frameChunk is how much of a frame is read (and taken from
	// FrameMemory) at a time.
	frameChunk = 64 << 10
)

// connCounts are the connections a server holds, over all its listeners,
// and their limits: max in all (MaxConns, or less where the process's
// open-files limit leaves room for fewer, Server.LimitConns) and perPeer
// for one process.
type connCounts struct {
	mu      sync.Mutex
	max     int
	perPeer int
	total   int
	byPeer  map[string]int
}

func newConnCounts() *connCounts {
	return &connCounts{max: MaxConns, perPeer: MaxConnsPerPeer, byPeer: make(map[string]int)}
}

// minConnsPerPeer is the fewest connections one process may hold under
// a lowered limit: a sidecar's stream, a write that waits, a command.
const minConnsPerPeer = 4

// limit lowers the limits to at most n connections in all, and one
// process's in the same proportion (an eighth), so that one process
// cannot take them all.
func (l *connCounts) limit(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.max = min(n, MaxConns)
	l.perPeer = min(MaxConnsPerPeer, l.max, max(l.max*MaxConnsPerPeer/MaxConns, minConnsPerPeer))
}

func (l *connCounts) take(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total >= l.max || l.byPeer[key] >= l.perPeer {
		return false
	}
	l.total++
	l.byPeer[key]++
	return true
}

func (l *connCounts) give(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	if l.byPeer[key]--; l.byPeer[key] == 0 {
		delete(l.byPeer, key)
	}
}

// connLimiter is a listener whose connections count against counts;
// connections over a limit are closed at once.
type connLimiter struct {
	net.Listener
	counts *connCounts
}

// Accept returns the next connection within the limits.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := peerKey(c)
		if l.counts.take(key) {
			return &limitedConn{Conn: c, release: sync.OnceFunc(func() { l.counts.give(key) })}, nil
		}
		c.Close()
	}
}

// peerKey names the process on the other end of c: its pid on a unix
// socket, its address on TCP.
func peerKey(c net.Conn) string {
	if uc, ok := c.(*net.UnixConn); ok {
		return "pid:" + strconv.Itoa(connPeer(uc).PID)
	}
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return "ip:" + a.IP.String()
	}
	return c.RemoteAddr().String()
}

// limitedConn gives its place back when closed.
type limitedConn struct {
	net.Conn
	release func()
}

func (c *limitedConn) Close() error {
	c.release()
	return c.Conn.Close()
}

// unwrapConn returns the connection a limitedConn wraps.
func unwrapConn(c net.Conn) net.Conn {
	if lc, ok := c.(*limitedConn); ok {
		return lc.Conn
	}
	return c
}

// memoryBudget is a count of bytes that frames take as they arrive and
// give back once answered.
type memoryBudget struct {
	mu   sync.Mutex
	free int64
	// wake is made by a taker that has to wait and closed (and cleared)
	// when bytes are given back: a give with no one waiting, the usual
	// case, allocates nothing.
	wake chan struct{}
}

func newMemoryBudget(n int64) *memoryBudget {
	return &memoryBudget{free: n}
}

// take waits for n bytes until ctx ends.
func (b *memoryBudget) take(ctx context.Context, n int64) error {
	for {
		b.mu.Lock()
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return nil
		}
		if b.wake == nil {
			b.wake = make(chan struct{})
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// tryTake takes n bytes if they are free now.
func (b *memoryBudget) tryTake(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.free < n {
		return false
	}
	b.free -= n
	return true
}

func (b *memoryBudget) give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free += n
	if b.wake != nil {
		close(b.wake)
		b.wake = nil
	}
}
