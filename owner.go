package leasegate

import (
	"time"

	"github.com/leasegate/leasegate/gate"
)

// Registration is what an owner registers: who it is (its liveness
// handle) and the windows it names. Windows it leaves zero are the
// coordinator's (Config.Windows). In JSON the owner's fields sit at the
// top level, next to "windows".
type Registration struct {
	gate.Owner
	Windows gate.Windows `json:"windows,omitzero"`
	// TreeEnds says that the owner's whole worker tree ends with the
	// owner's process (a `leasegate run` sidecar: its reaper kills the
	// worker's every process when the sidecar dies), so a reclaim after
	// that process's death leaves no writer behind.
	TreeEnds bool `json:"tree_ends,omitempty"`
	// HeartbeatTTL is how long the owner may go without a heartbeat before
	// it is judged dead, where it is judged by heartbeat (no pid): an agent
	// hook session whose agent process could not be found beats only with
	// its hook calls. Zero means the coordinator's TTL; at most
	// MaxHeartbeatTTL.
	HeartbeatTTL time.Duration `json:"heartbeat_ttl_ns,omitempty"`
	// JoinRoot asks to act as the live owner already registered with the
	// same root process, if there is one, instead of registering a second
	// owner for that process (see Service.Join). The agent adapters that
	// each name an agent's session (its hooks, its MCP server) set it; a
	// sidecar, whose process is its own, does not. On the wire it is the
	// query ?join=root, which a coordinator without it ignores, where it
	// would refuse an unknown field of the body.
	JoinRoot bool `json:"-"`
}

// Joined is the answer of a registration: the owner its registrant acts
// as from now on, which is the name it registered unless it joined
// another (Registration.JoinRoot).
type Joined struct {
	Owner string `json:"owner"`
}

// MaxHeartbeatTTL bounds the heartbeat TTL an owner may name.
const MaxHeartbeatTTL = time.Hour
