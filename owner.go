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

// Beat is a coordinator's answer to an owner's heartbeat: how long the
// owner's gate may go on answering writes from the leases it caches
// without a fresh word from the coordinator.
type Beat struct {
	// Bounded says that the cache is trusted only for TrustFor: the
	// coordinator shares its lease table with other machines (etcd), which
	// are granted this owner's files once the coordinator's session lapses,
	// whether or not it can tell its gates. False (a lease table no other
	// machine writes): the cache needs no bound.
	Bounded bool `json:"bounded,omitempty"`
	// TrustFor is, with Bounded, how long the coordinator's session is sure
	// to live when it answered, counted by the gate from when it sent the
	// heartbeat, which is no later; zero while it has no session.
	TrustFor time.Duration `json:"trust_for_ns,omitempty"`
	// Session numbers the coordinator's session (it grows with each new
	// one): a gate that sees a new number forgets the leases it caches,
	// since they were granted under an earlier session.
	Session uint64 `json:"session,omitempty"`
}

// MaxHeartbeatTTL bounds the heartbeat TTL an owner may name.
const MaxHeartbeatTTL = time.Hour
