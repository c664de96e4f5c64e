package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
)

// ToolError is a tool's failure as the model sees it: a reason code (the
// CLI's and the API's) and what was wrong. Nothing was changed.
type ToolError struct {
	Code    gate.Reason
	Message string
}

func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Message }

// ErrorContent is the structured content of an error result.
type ErrorContent struct {
	Error struct {
		Code    gate.Reason `json:"code"`
		Message string      `json:"message"`
	} `json:"error"`
}

func invalid(format string, args ...any) error {
	return &ToolError{Code: gate.ReasonInputInvalid, Message: fmt.Sprintf(format, args...)}
}

func unavailable(err error) error {
	return &ToolError{Code: api.CodeUnavailable, Message: fmt.Sprintf(
		"the leasegate coordinator cannot be reached, so nothing is known about leases (no path may be assumed free): %v", err)}
}

// fromAPI is the tool error of an API error: its code and message.
func fromAPI(err error) error {
	var de *gate.DeniedError
	if errors.As(err, &de) {
		msg := de.Message
		if de.Holder != nil && !strings.Contains(msg, string(de.Holder.ID)) {
			msg += fmt.Sprintf(" (held by %s, lease %s)", de.Holder.Owner.Name, de.Holder.ID)
		}
		return &ToolError{Code: de.Reason, Message: msg}
	}
	return &ToolError{Code: api.CodeInternal, Message: err.Error()}
}

// callDeadline is the middleware that bounds a tool call by
// CallTimeout, on the injected clock, and says a call that met it was
// not answered: the coordinator is unreachable for now, and a change the
// call asked for may yet be made.
func (s *Server) callDeadline(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		ctx, cancel := s.cfg.Clock.WithTimeout(ctx, s.cfg.CallTimeout)
		defer cancel()
		res, err := next(ctx, method, req)
		r, ok := res.(*sdk.CallToolResult)
		if err != nil || !ok || !r.IsError || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return res, err
		}
		r.Content = nil
		r.SetError(&ToolError{Code: api.CodeUnavailable, Message: fmt.Sprintf(
			"the leasegate coordinator did not answer within %s (paused, stopped, or waiting for its etcd cluster), "+
				"so nothing is known about leases (no path may be assumed free); a lease change this call asked for "+
				"may still be made once it answers: leases_status then shows what you hold", s.cfg.CallTimeout)})
		return r, nil
	}
}

// errorResults is the middleware that gives every error result its
// reason code, in text and as structured content: a ToolError's own, and
// INPUT_SCHEMA_INVALID for arguments the SDK refused against the tool's
// schema before any handler ran (unknown fields, wrong types).
func errorResults(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*sdk.CallToolResult)
		if err != nil || !ok || !r.IsError {
			return res, err
		}
		var te *ToolError
		if !errors.As(r.GetError(), &te) {
			te = &ToolError{Code: gate.ReasonInputInvalid, Message: textOf(r)}
		}
		var ec ErrorContent
		ec.Error.Code, ec.Error.Message = te.Code, te.Message
		r.Content = []sdk.Content{&sdk.TextContent{Text: te.Error()}}
		r.StructuredContent = ec
		return r, nil
	}
}

func textOf(r *sdk.CallToolResult) string {
	for _, c := range r.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			return t.Text
		}
	}
	return "invalid arguments"
}
