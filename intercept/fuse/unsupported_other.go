//go:build !linux || !(amd64 || arm64)

package fuse

import (
	"context"
	"os"
)

// Supervisor runs one worker under the gate. On this platform it cannot
// be started.
type Supervisor struct{}

// MaybeRunChild does nothing on this platform.
func MaybeRunChild() {}

// Available returns ErrUnsupported on this platform.
func Available() error { return ErrUnsupported }

// Start validates cfg and returns ErrUnsupported on this platform.
func Start(_ context.Context, cfg Config) (*Supervisor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return nil, ErrUnsupported
}

// Pid returns 0.
func (s *Supervisor) Pid() int { return 0 }

// KillTree does nothing on this platform.
func (s *Supervisor) KillTree() {}

// Wait returns ErrUnsupported.
func (s *Supervisor) Wait() (*os.ProcessState, error) { return nil, ErrUnsupported }

// Exited returns a closed channel.
func (s *Supervisor) Exited() <-chan struct{} { return closed() }

// Done returns a closed channel.
func (s *Supervisor) Done() <-chan struct{} { return closed() }

// Close does nothing.
func (s *Supervisor) Close() error { return nil }

func closed() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
