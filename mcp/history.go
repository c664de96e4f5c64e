package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate/gate"
)

// History limits: the default keeps a model's context small.
const (
	defaultHistory = 50
	maxHistory     = 1000
)

// HistoryInput is the input of history.
type HistoryInput struct {
	Path    string `json:"path,omitempty" jsonschema:"a file or glob relative to the workspace root"`
	LeaseID string `json:"lease_id,omitempty" jsonschema:"a lease id (give path or lease_id, not both)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many events, newest kept (default 50, at most 1000)"`
}

// Event is one ledger event.
type Event struct {
	Seq     uint64 `json:"seq"`
	At      string `json:"at"`
	Type    string `json:"type"`
	Actor   string `json:"actor,omitempty"`
	LeaseID string `json:"lease_id,omitempty"`
	Path    string `json:"path,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// HistoryOutput is the answer of history.
type HistoryOutput struct {
	Events []Event `json:"events"`
}

func (s *Server) addHistory() {
	sdk.AddTool(s.srv, &sdk.Tool{Name: "history", Annotations: readOnly("Lease history"),
		Description: "The audit trail of a path or a lease: grants, releases, expiries, reclaims, contention and blockers, oldest first."},
		s.history)
}

func (s *Server) history(ctx context.Context, _ *sdk.CallToolRequest, in HistoryInput) (*sdk.CallToolResult, HistoryOutput, error) {
	path, id, limit, err := s.historyArgs(in)
	if err != nil {
		return nil, HistoryOutput{}, err
	}
	cl, err := s.conn.get(ctx)
	if err != nil {
		return nil, HistoryOutput{}, err
	}
	evs, err := cl.History(ctx, id, path, limit)
	if err != nil {
		return nil, HistoryOutput{}, s.conn.check(cl, err)
	}
	out := HistoryOutput{Events: make([]Event, 0, len(evs))}
	var b strings.Builder
	for _, e := range evs {
		ev := Event{Seq: e.Seq, At: stamp(e.At), Type: string(e.Type), Actor: e.Actor, LeaseID: string(e.LeaseID), Path: e.Path, Reason: e.Reason}
		if e.Lease != nil {
			ev.LeaseID = string(e.Lease.ID)
			if ev.Actor == "" {
				ev.Actor = e.Lease.Owner.Name
			}
		}
		out.Events = append(out.Events, ev)
		fmt.Fprintf(&b, "%d %s %s %s %s %s %s\n", ev.Seq, ev.At, ev.Type, ev.LeaseID, ev.Path, ev.Actor, ev.Reason)
	}
	if len(evs) == 0 {
		b.WriteString("no events\n")
	}
	return textResult(b.String()), out, nil
}

func (s *Server) historyArgs(in HistoryInput) (string, gate.LeaseID, int, error) {
	limit := in.Limit
	switch {
	case in.Path != "" && in.LeaseID != "":
		return "", "", 0, invalid("give path or lease_id, not both")
	case limit < 0 || limit > maxHistory:
		return "", "", 0, invalid("limit %d: want 1 to %d (default %d)", limit, maxHistory, defaultHistory)
	case limit == 0:
		limit = defaultHistory
	}
	if in.LeaseID != "" {
		return "", gate.LeaseID(in.LeaseID), limit, checkID("lease_id", in.LeaseID)
	}
	if in.Path == "" {
		return "", "", limit, nil
	}
	p, err := cleanPath(s.ws, in.Path)
	return p, "", limit, err
}
