package coordinator

// PidNS is the pid namespace the coordinator runs in, as status shows it.
type PidNS struct {
	// ID names it as /proc/self/ns/pid does ("pid:[4026531836]").
	ID string `json:"id"`
	// Host is true for the host's (initial) pid namespace.
	Host bool `json:"host"`
	// Note says what a private one means, and the fix.
	Note string `json:"note,omitempty"`
}
