package gate

import (
	"errors"
	"fmt"
	"time"
)

// Reason is a decision's reason code. Codes are stable: they appear in the
// API, in blocker reports and in exit codes.
type Reason string

const (
	ReasonOK               Reason = "OK"
	ReasonHeldByOther      Reason = "LEASE_HELD_BY_OTHER"
	ReasonScopeOverlap     Reason = "LEASE_SCOPE_OVERLAP" // a check-out overlapping the requester's own check-out
	ReasonTokenInvalid     Reason = "LEASE_TOKEN_INVALID"
	ReasonTTLOutOfBounds   Reason = "LEASE_TTL_OUT_OF_BOUNDS"
	ReasonNotFound         Reason = "LEASE_NOT_FOUND"
	ReasonExpired          Reason = "LEASE_EXPIRED"
	ReasonEvicted          Reason = "LEASE_EVICTED"
	ReasonTerminal         Reason = "LEASE_ALREADY_TERMINAL"
	ReasonOwnerMismatch    Reason = "OWNER_MISMATCH"
	ReasonInputInvalid     Reason = "INPUT_SCHEMA_INVALID"
	ReasonOutsideWorkspace Reason = "PATH_OUTSIDE_WORKSPACE"
	ReasonAdminRequired    Reason = "ADMIN_REQUIRED"
	ReasonBudgetExceeded   Reason = "BUDGET_EXCEEDED"
)

// DeniedError is a denial as an error: the reason code, a message, and the
// conflicting lease when another owner holds the path.
type DeniedError struct {
	Reason  Reason
	Message string
	Holder  *Lease
}

func (e *DeniedError) Error() string {
	if e.Holder != nil {
		return fmt.Sprintf("%s: %s (held by %s, lease %s)", e.Reason, e.Message, e.Holder.Owner.Name, e.Holder.ID)
	}
	return fmt.Sprintf("%s: %s", e.Reason, e.Message)
}

// Is makes errors.Is(err, ErrHeldByOther) and friends work on a DeniedError.
func (e *DeniedError) Is(target error) bool { return isReason(target, e.Reason) }

type sentinel Reason

// isReason reports whether target is the sentinel of r.
func isReason(target error, r Reason) bool {
	var s sentinel
	return errors.As(target, &s) && Reason(s) == r
}

func (s sentinel) Error() string { return string(s) }

// Sentinels to branch on with errors.Is; every DeniedError matches the one
// of its Reason.
var (
	ErrHeldByOther    error = sentinel(ReasonHeldByOther)
	ErrScopeOverlap   error = sentinel(ReasonScopeOverlap)
	ErrTokenInvalid   error = sentinel(ReasonTokenInvalid)
	ErrTTLOutOfBounds error = sentinel(ReasonTTLOutOfBounds)
	ErrNotFound       error = sentinel(ReasonNotFound)
	ErrExpired        error = sentinel(ReasonExpired)
	ErrEvicted        error = sentinel(ReasonEvicted)
	ErrTerminal       error = sentinel(ReasonTerminal)
	ErrOwnerMismatch  error = sentinel(ReasonOwnerMismatch)
	ErrInputInvalid   error = sentinel(ReasonInputInvalid)
	ErrOutside        error = sentinel(ReasonOutsideWorkspace)
	ErrAdminRequired  error = sentinel(ReasonAdminRequired)
	ErrBudget         error = sentinel(ReasonBudgetExceeded)
)

// HeldSince is how long the holder of a denial has held its lease at now.
func (e *DeniedError) HeldSince(now time.Time) time.Duration {
	if e.Holder == nil {
		return 0
	}
	return now.Sub(e.Holder.AcquiredAt)
}
