package api

import (
	"errors"
	"net/http"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// Codes beyond gate's reason codes, for failures that are not decisions.
const (
	CodeUnauthorized gate.Reason = "UNAUTHORIZED"
	CodeTooLarge     gate.Reason = "REQUEST_TOO_LARGE"
	CodeUnavailable  gate.Reason = "COORDINATOR_UNAVAILABLE"
	CodeNotOpen      gate.Reason = "BLOCKER_NOT_OPEN"
	CodeInternal     gate.Reason = "INTERNAL_ERROR"
	// CodeLedgerDegraded refuses a write while the ledger cannot copy its
	// journal into its file (a full disk) and the journal's room runs
	// low; writes resume by themselves once there is space.
	CodeLedgerDegraded gate.Reason = "LEDGER_DEGRADED"
)

// statusOf is the one table between reason codes and HTTP statuses.
var statusOf = map[gate.Reason]int{
	gate.ReasonInputInvalid:     http.StatusBadRequest,
	gate.ReasonOutsideWorkspace: http.StatusBadRequest,
	gate.ReasonTTLOutOfBounds:   http.StatusBadRequest,
	gate.ReasonBudgetExceeded:   http.StatusRequestEntityTooLarge,
	CodeTooLarge:                http.StatusRequestEntityTooLarge,
	gate.ReasonAdminRequired:    http.StatusUnauthorized,
	CodeUnauthorized:            http.StatusUnauthorized,
	gate.ReasonOwnerMismatch:    http.StatusForbidden,
	gate.ReasonTokenInvalid:     http.StatusForbidden,
	gate.ReasonNotFound:         http.StatusNotFound,
	gate.ReasonHeldByOther:      http.StatusConflict,
	gate.ReasonScopeOverlap:     http.StatusConflict,
	CodeNotOpen:                 http.StatusConflict,
	gate.ReasonExpired:          http.StatusGone,
	gate.ReasonEvicted:          http.StatusGone,
	gate.ReasonTerminal:         http.StatusGone,
	CodeUnavailable:             http.StatusServiceUnavailable,
	CodeLedgerDegraded:          http.StatusServiceUnavailable,
	CodeInternal:                http.StatusInternalServerError,
}

// ErrorBody is the JSON of every error response.
type ErrorBody struct {
	Error struct {
		Code    gate.Reason `json:"code"`
		Message string      `json:"message"`
		Holder  *gate.Lease `json:"holder,omitempty"`
	} `json:"error"`
}

// errorBody classifies err for the wire.
func errorBody(err error) (int, ErrorBody) {
	var b ErrorBody
	var de *gate.DeniedError
	switch {
	case errors.As(err, &de):
		b.Error.Code, b.Error.Message, b.Error.Holder = de.Reason, de.Message, de.Holder
	case errors.Is(err, blocker.ErrNotOpen):
		b.Error.Code, b.Error.Message = CodeNotOpen, err.Error()
	case errors.Is(err, blocker.ErrUnknownAction):
		b.Error.Code, b.Error.Message = gate.ReasonInputInvalid, err.Error()
	case errors.Is(err, leasegate.ErrLedgerDegraded):
		b.Error.Code, b.Error.Message = CodeLedgerDegraded, err.Error()
	case errors.Is(err, leasegate.ErrFailed), errors.Is(err, leasegate.ErrRaced), errors.Is(err, leasegate.ErrNoSession):
		b.Error.Code, b.Error.Message = CodeUnavailable, err.Error()
	default:
		b.Error.Code, b.Error.Message = CodeInternal, err.Error()
	}
	st, ok := statusOf[b.Error.Code]
	if !ok {
		st = http.StatusBadRequest
	}
	return st, b
}

// APIError is an error answer from the coordinator, as the client sees it.
// It unwraps to the *gate.DeniedError of its code, so callers branch with
// errors.Is(err, gate.ErrHeldByOther) or errors.As.
type APIError struct {
	Status int
	Body   ErrorBody
}

func (e *APIError) Error() string {
	return string(e.Body.Error.Code) + ": " + e.Body.Error.Message
}

func (e *APIError) Unwrap() error {
	return &gate.DeniedError{Reason: e.Body.Error.Code, Message: e.Body.Error.Message, Holder: e.Body.Error.Holder}
}

// ErrUnavailable is returned when the coordinator cannot be reached or
// answers something that is not its protocol. Fail closed on it.
var ErrUnavailable = errors.New("coordinator unavailable")
