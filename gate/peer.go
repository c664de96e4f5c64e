package gate

import "fmt"

// Peer is the process on the other end of an API connection, as the kernel
// reported it when the connection was accepted (SO_PEERCRED on the unix
// socket), never as the caller claims. One connection has one peer for its
// whole life: the kernel records the credentials of the process that
// connected.
type Peer struct {
	// PID is the connecting process as the coordinator's pid namespace sees
	// it; 0 when it is not visible from there (a namespace the coordinator
	// does not contain).
	PID int `json:"pid"`
	// UID and GID are the connecting process's effective ids.
	UID uint32 `json:"uid"`
	GID uint32 `json:"gid"`
}

// NoID is the uid or gid of a peer whose credentials could not be read:
// (uid_t)-1, which no process runs as.
const NoID = ^uint32(0)

// Operator is the process that did an operator's act (an eviction, a
// blocker resolution, a lease operation in another owner's name), as the
// coordinator identified it; the ledger keeps it with the act's events.
type Operator struct {
	PID    int    `json:"pid,omitempty"`
	Comm   string `json:"comm,omitempty"` // the process's short name (/proc/PID/comm)
	UID    uint32 `json:"uid"`
	Source string `json:"source"` // how it was identified: "SO_PEERCRED"
}

// String says who it was, as history prints it.
func (o *Operator) String() string {
	return fmt.Sprintf("%s pid %d uid %d (%s)", o.Comm, o.PID, o.UID, o.Source)
}
