package gate

import (
	"errors"
	"fmt"
	"time"
)

// The contract's windows. Each is exact and asserted by tests; an owner
// may name a shorter one (for tests and demos), never a longer one.
const (
	// DefaultRetryAfter is the wait between a denied mutation and its one
	// retry. A writer blocked by another owner's lease waits this long,
	// exactly once, before a still-held path becomes a blocker report: long
	// enough for a holder to finish a typical edit-and-test turn and
	// release, short enough that a real conflict reaches an operator within
	// minutes. No short-loop retries: they add load and flapping without
	// making the holder finish sooner.
	DefaultRetryAfter = 180 * time.Second
	// DefaultIdleAfter is how long a stopped owner may go without a
	// mutation before its leases are released. Shorter frees files sooner
	// but releases the leases of an agent that merely paused between two
	// tool calls; 30 s covers that pause, and any activity before it
	// elapses cancels the release.
	DefaultIdleAfter = 30 * time.Second
)

// ErrWindow is wrapped by every error about a window's value.
var ErrWindow = errors.New("invalid window")

// WindowSource says who named a window.
type WindowSource string

const (
	// FromFlag: the command's --retry-after or --idle-after flag.
	FromFlag WindowSource = "flag"
	// FromEnv: LEASEGATE_RETRY_AFTER or LEASEGATE_IDLE_AFTER.
	FromEnv WindowSource = "env"
	// FromContract: nobody named one; the contract's default.
	FromContract WindowSource = "contract"
	// FromCoordinator: the owner named none; the coordinator's own window
	// (itself from serve's flag, env or the contract) applies.
	FromCoordinator WindowSource = "coordinator default"
)

// Window is one contract window and who named it. The zero Window names
// none.
type Window struct {
	After time.Duration `json:"after_ns"`
	From  WindowSource  `json:"from"`
}

// Set reports whether w names a window.
func (w Window) Set() bool { return w.After != 0 }

// String reads "1s (flag)".
func (w Window) String() string { return fmt.Sprintf("%s (%s)", w.After, w.From) }

// Windows are an owner's two windows: Retry times the one retry of its
// denied mutations (it is the waiter's), Idle its stop-idle release (it
// is the holder's). A zero field names none.
type Windows struct {
	Retry Window `json:"retry,omitzero"`
	Idle  Window `json:"idle,omitzero"`
}

// ContractWindows are the contract's defaults, named by nobody.
func ContractWindows() Windows {
	return Windows{
		Retry: Window{After: DefaultRetryAfter, From: FromContract},
		Idle:  Window{After: DefaultIdleAfter, From: FromContract},
	}
}

// Validate reports a window that is zero or negative (where set, or
// required) or longer than the contract's, wrapping ErrWindow.
func (ws Windows) Validate() error {
	return errors.Join(ValidRetryAfter(ws.Retry.After, false), ValidIdleAfter(ws.Idle.After, false))
}

// ValidRetryAfter reports a retry window that is negative, zero (when
// required; otherwise zero names none) or longer than DefaultRetryAfter.
func ValidRetryAfter(d time.Duration, required bool) error {
	return validWindow("retry-after", d, DefaultRetryAfter, required)
}

// ValidIdleAfter reports an idle window that is negative, zero (when
// required) or longer than DefaultIdleAfter.
func ValidIdleAfter(d time.Duration, required bool) error {
	return validWindow("idle-after", d, DefaultIdleAfter, required)
}

func validWindow(name string, d, most time.Duration, required bool) error {
	switch {
	case d == 0 && !required:
		return nil
	case d <= 0:
		return fmt.Errorf("%s %s: must be positive: %w", name, d, ErrWindow)
	case d > most:
		return fmt.Errorf("%s %s: longer than the contract's %s (windows may only be shortened): %w", name, d, most, ErrWindow)
	}
	return nil
}

// Or fills each window ws does not name from def, marked as the
// coordinator's default.
func (ws Windows) Or(def Windows) Windows {
	if !ws.Retry.Set() {
		ws.Retry = Window{After: def.Retry.After, From: FromCoordinator}
	}
	if !ws.Idle.Set() {
		ws.Idle = Window{After: def.Idle.After, From: FromCoordinator}
	}
	return ws
}
