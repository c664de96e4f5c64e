package gate

import "time"

// LivenessStatus is what the liveness evaluator concluded about an owner.
type LivenessStatus string

const (
	// Alive: the owner's process exists with its start time, or its
	// heartbeat is fresh.
	Alive LivenessStatus = "alive"
	// Stopped: the owner's process exists but is stopped (state T).
	Stopped LivenessStatus = "stopped"
	// Dead: the process is gone (or its pid now belongs to another process),
	// or the heartbeat is older than the liveness TTL. Only Dead reclaims.
	Dead LivenessStatus = "dead"
	// Unknown: no evidence either way; treated as alive (conservative).
	Unknown LivenessStatus = "unknown"
)

// Liveness is a verdict on one owner with the evidence that supports it.
type Liveness struct {
	Status    LivenessStatus `json:"status"`
	CheckedAt time.Time      `json:"checked_at"`
	Evidence  []string       `json:"evidence"`
}
