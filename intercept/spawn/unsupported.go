package spawn

import (
	"errors"
	"os"
)

// Unsupported is the supervisor of a gate that cannot start on this
// platform, for an adapter's Supervisor to embed there: its Start never
// returns one, so these answer only what a caller holding a zero
// Supervisor could ask. Wait wraps errors.ErrUnsupported.
type Unsupported struct{}

// Pid returns 0: there is no worker.
func (Unsupported) Pid() int { return 0 }

// KillTree does nothing.
func (Unsupported) KillTree() {}

// Wait returns errors.ErrUnsupported.
func (Unsupported) Wait() (*os.ProcessState, error) { return nil, errors.ErrUnsupported }

// Exited returns a closed channel.
func (Unsupported) Exited() <-chan struct{} { return closed() }

// Done returns a closed channel.
func (Unsupported) Done() <-chan struct{} { return closed() }

// Close does nothing.
func (Unsupported) Close() error { return nil }

func closed() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
