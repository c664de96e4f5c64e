package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate/blocker"
)

// BlockersInput is the input of blockers_list.
type BlockersInput struct {
	All bool `json:"all,omitempty" jsonschema:"include resolved reports too"`
}

// BlockersOutput is the answer of blockers_list.
type BlockersOutput struct {
	Blockers []Blocker `json:"blockers"`
}

// BlockerInput is the input of blocker_show.
type BlockerInput struct {
	ID string `json:"id" jsonschema:"the blocker id, as leases_check or blockers_list gave it"`
}

// BlockerOutput is the answer of blocker_show.
type BlockerOutput struct {
	Blocker  Blocker `json:"blocker"`
	Markdown string  `json:"markdown" jsonschema:"the whole report: who holds the path, the evidence, and how to get out"`
}

func (s *Server) addBlockers() {
	sdk.AddTool(s.srv, &sdk.Tool{Name: "blockers_list", Annotations: readOnly("List blockers"),
		Description: "List blocker reports: writes still refused after their one retry, each halting its writer until an operator resolves it."},
		s.blockers)
	sdk.AddTool(s.srv, &sdk.Tool{Name: "blocker_show", Annotations: readOnly("Show a blocker"),
		Description: "Show one blocker report as Markdown: the blocked write, the holder and its liveness evidence, and the commands that resolve it."},
		s.blocker)
}

func (s *Server) blockers(ctx context.Context, _ *sdk.CallToolRequest, in BlockersInput) (*sdk.CallToolResult, BlockersOutput, error) {
	cl, err := s.conn.get(ctx)
	if err != nil {
		return nil, BlockersOutput{}, err
	}
	reps, err := cl.Blockers(ctx, in.All)
	if err != nil {
		return nil, BlockersOutput{}, s.conn.check(cl, err)
	}
	out := BlockersOutput{Blockers: make([]Blocker, 0, len(reps))}
	var b strings.Builder
	fmt.Fprintf(&b, "%d blocker(s)\n", len(reps))
	for _, r := range reps {
		out.Blockers = append(out.Blockers, brief(r))
		fmt.Fprintf(&b, "%s\n", blockerLine(brief(r)))
	}
	return textResult(b.String()), out, nil
}

func (s *Server) blocker(ctx context.Context, _ *sdk.CallToolRequest, in BlockerInput) (*sdk.CallToolResult, BlockerOutput, error) {
	if err := checkID("id", in.ID); err != nil {
		return nil, BlockerOutput{}, err
	}
	cl, err := s.conn.get(ctx)
	if err != nil {
		return nil, BlockerOutput{}, err
	}
	r, err := cl.Blocker(ctx, in.ID)
	if err != nil {
		return nil, BlockerOutput{}, s.conn.check(cl, err)
	}
	out := BlockerOutput{Blocker: brief(r), Markdown: r.Markdown()}
	return textResult(out.Markdown), out, nil
}

func brief(r blocker.Report) Blocker {
	b := Blocker{ID: r.ID, Status: string(r.Status), Path: r.Path, Paths: r.Paths, Requester: r.Requester.Name,
		Holder: r.Holder.Owner.Name, HolderLease: string(r.Holder.LeaseID), Reason: string(r.Reason), RetriedAt: stamp(r.RetriedAt)}
	if n := r.HolderNow; n != nil {
		holds := n.Holds
		b.HolderHolds, b.HolderNow = &holds, n.Phrase()
	}
	return b
}

func blockerLine(b Blocker) string {
	line := fmt.Sprintf("%s [%s]: %s's write to %s, held by %s (lease %s)", b.ID, b.Status, b.Requester, b.Path, b.Holder, b.HolderLease)
	switch {
	case b.HolderHolds == nil:
	case *b.HolderHolds:
		line += "; the holder still " + b.HolderNow
	default:
		line += "; the holder no longer holds it: " + b.HolderNow
	}
	return line
}
