//go:build !linux || !(amd64 || arm64)

package seccomp

import (
	"context"

	"github.com/leasegate/leasegate/intercept/spawn"
)

// Supervisor runs one worker under the gate. On this platform it cannot
// be started.
type Supervisor struct{ spawn.Unsupported }

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
