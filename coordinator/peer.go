package coordinator

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/liveness"
)

// chain is a connection's peer and its ancestors, nearest first, or why
// they could not be read. Its ancestors can only leave the chain (a
// process is re-parented to a subreaper or init above it), never join it,
// so one walk serves every request of the connection.
type chain struct {
	procs []liveness.Proc
	err   error
	comm  func() string // the peer's command name, read on the first call only
	// busy is set with err when /proc could not be read for want of a
	// resource (descriptors, memory): the peer is not known to be anyone
	// yet, and the next call reads again.
	busy bool
}

// chainMemo is a connection's chain, read again while reads fail busy.
type chainMemo struct {
	mu   sync.Mutex
	ch   chain
	read bool
}

// ancestry returns the connection's peer and its ancestors, nearest first,
// reading /proc on the first call only (until a read that is not busy). A
// peer the coordinator cannot see (pid 0), that has exited, or whose pid
// now belongs to a process started after the connection was accepted has
// no ancestry: an error.
func ancestry(conn *leasegate.Connection) chain {
	m := conn.Memo(func() any { return &chainMemo{} }).(*chainMemo)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.read {
		m.ch = readAncestry(conn)
		m.read = !m.ch.busy
	}
	return m.ch
}

// readAncestry reads a connection's chain; tests replace it.
var readAncestry = readChain

func readChain(conn *leasegate.Connection) chain {
	if conn.Peer.PID <= 0 {
		return chain{err: fmt.Errorf("the connecting process is not visible in the coordinator's pid namespace (SO_PEERCRED pid 0)")}
	}
	procs, err := liveness.Ancestry(conn.Peer.PID)
	if err == nil && time.UnixMilli(procs[0].StartTime).After(conn.Accepted.Add(liveness.StartSlack)) {
		procs, err = nil, fmt.Errorf("pid %d started after it connected: the connecting process exited", conn.Peer.PID)
	}
	if err != nil {
		return chain{err: fmt.Errorf("cannot identify the connecting process: %w", err), busy: outOfResources(err)}
	}
	// The name goes into the ledger with every act of an operator (a
	// release, an eviction): read from /proc once per connection, not per
	// act, and never under the coordinator's mutex more than once.
	return chain{procs: procs, comm: sync.OnceValue(func() string { return liveness.Comm(conn.Peer.PID) })}
}

// outOfResources reports whether err is the system's want of a resource
// (a descriptor, memory), which passes, rather than anything about the
// process read.
func outOfResources(err error) bool {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
