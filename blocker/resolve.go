package blocker

import (
	"errors"
	"fmt"
	"time"
)

// Errors of Resolve and Book.Apply.
var (
	// ErrNotOpen: the report is already resolved; every resolution is
	// final for its report.
	ErrNotOpen = errors.New("blocker is not open")
	// ErrUnknownAction: the action is not retry, deny or abort.
	ErrUnknownAction = errors.New("unknown blocker action")
	// ErrNotFound: no report has the id.
	ErrNotFound = errors.New("blocker not found")
	// ErrExists: a report with the id was already opened.
	ErrExists = errors.New("blocker already exists")
	// ErrInvalidEvent: a blocker event whose data cannot be a report or a
	// resolution (no id, malformed JSON, a report that is not open).
	ErrInvalidEvent = errors.New("invalid blocker event")
)

// Resolve records an operator's answer: an open report becomes retried,
// denied or aborted, and lists no more steps. Any other report gives ErrNotOpen, an action that is
// not retry, deny or abort gives ErrUnknownAction, and on error r is left
// unchanged.
func (r *Report) Resolve(a Action, by string, at time.Time, note string) error {
	st, ok := resolvedStatus[a]
	if !ok {
		return fmt.Errorf("resolve %s with %q: %w", r.ID, a, ErrUnknownAction)
	}
	if r.Status != StatusOpen {
		return fmt.Errorf("resolve %s: it is %s: %w", r.ID, r.Status, ErrNotOpen)
	}
	r.Status = st
	r.Resolution = &Resolution{Action: a, By: by, At: utc(at), Note: note}
	r.HowToResolve = r.steps()
	return nil
}
