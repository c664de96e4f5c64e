package gate

import (
	"errors"
	"fmt"
)

// InputError is a refusal of what a caller sent, before any lease is looked
// at: a path CleanPath refused, or a scope over the path budget. Its
// message says what was wrong; Reason is the code a caller answers with.
type InputError struct {
	Reason  Reason
	Message string
}

func (e *InputError) Error() string { return e.Message }

// Is makes errors.Is(err, ErrOutside) and friends work on an InputError.
func (e *InputError) Is(target error) bool { return isReason(target, e.Reason) }

func inputErrorf(r Reason, format string, args ...any) error {
	return &InputError{Reason: r, Message: fmt.Sprintf(format, args...)}
}

// ReasonOf is the reason code err carries: a *DeniedError's or an
// *InputError's, and INPUT_SCHEMA_INVALID for any other error.
func ReasonOf(err error) Reason {
	var de *DeniedError
	if errors.As(err, &de) {
		return de.Reason
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return ie.Reason
	}
	return ReasonInputInvalid
}

// AsDenied is err as the denial a caller answers with: err itself when it
// holds a *DeniedError, else a *DeniedError with err's reason (ReasonOf)
// and err's text as its message.
func AsDenied(err error) error {
	var de *DeniedError
	if errors.As(err, &de) {
		return err
	}
	return &DeniedError{Reason: ReasonOf(err), Message: err.Error()}
}
