package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// CheckInput is the input of leases_check.
type CheckInput struct {
	Paths []string `json:"paths" jsonschema:"files or globs to check, relative to the workspace root (absolute paths inside it also work), e.g. [\"src/main.go\", \"docs/**\"]"`
}

// Path states of leases_check.
const (
	Free        = "free"
	HeldByMe    = "held_by_me"
	HeldByOther = "held_by_other"
	// Refused is a path no worker may write, whoever holds it:
	// leasegate's state directory and the operator's leasegate.json.
	Refused = "refused"
	// NotGated is a path writes to which pass no lease gate: git's own
	// directory, which git serializes with its lock files.
	NotGated = "not_gated"
)

// PathCheck is what leases_check says of one path.
type PathCheck struct {
	Path        string       `json:"path"`
	State       string       `json:"state" jsonschema:"free, held_by_me, held_by_other, refused (a path no agent may write) or not_gated (writes there need no lease); see reason"`
	Reason      string       `json:"reason,omitempty" jsonschema:"why a path is refused or not gated"`
	Holders     []Holding    `json:"holders,omitempty"`
	Contentions []Contention `json:"contentions,omitempty" jsonschema:"writes to this path waiting for their one retry, with the retry time"`
	Blockers    []string     `json:"open_blockers,omitempty" jsonschema:"ids of open blocker reports on this path (see blocker_show)"`
	Watch       string       `json:"watch,omitempty" jsonschema:"while held: the resource to subscribe to, to be told when the path changes hands"`
}

// CheckOutput is the answer of leases_check.
type CheckOutput struct {
	Me      string      `json:"me,omitempty" jsonschema:"the owner this server acts for; empty until it holds or asks for something"`
	Warning string      `json:"warning,omitempty" jsonschema:"set while the coordinator's ledger is degraded or it has no session on a lease table shared with other machines: a path said free may be held elsewhere, and writes wait until it is back"`
	Paths   []PathCheck `json:"paths"`
}

func (s *Server) addCheck() {
	sdk.AddTool(s.srv, &sdk.Tool{Name: "leases_check", Annotations: readOnly("Check paths"),
		Description: "Say for each path or glob whether it is free, held by me, or held by another owner: the holder, " +
			"its lease kind, how long it has held it, whether the holder is alive (with the evidence), writes waiting on it " +
			"and when they are retried, and open blockers; or refused, with why, for a path no agent may write " +
			"(leasegate's state directory, the operator's leasegate.json). " +
			"Call it before editing files; pick other work when a file is held by another live owner."},
		s.check)
}

func (s *Server) check(ctx context.Context, _ *sdk.CallToolRequest, in CheckInput) (*sdk.CallToolResult, CheckOutput, error) {
	paths, err := cleanPaths(s.ws, in.Paths)
	if err != nil {
		return nil, CheckOutput{}, err
	}
	out := CheckOutput{Paths: make([]PathCheck, len(paths))}
	asked := make([]string, 0, len(paths))
	for i, p := range paths {
		if pc, refused := s.refusal(p); refused {
			out.Paths[i] = pc
		} else {
			asked = append(asked, p)
		}
	}
	if len(asked) == 0 {
		return textResult(checkText(out)), out, nil
	}
	st, live, me, err := s.look(ctx, asked)
	if err != nil {
		return nil, CheckOutput{}, err
	}
	out.Me, out.Warning = me, st.LedgerWarning
	for i, p := range paths {
		if s := out.Paths[i].State; s == Refused || s == NotGated {
			continue
		}
		pc := checkPath(st, p, me, live, s.ws.Folding())
		s.watch.noteChecked(p, checkPath(st, p, "", nil, s.ws.Folding()).State)
		if pc.State != Free {
			pc.Watch = PathURI(p)
		}
		out.Paths[i] = pc
	}
	return textResult(checkText(out)), out, nil
}

// look asks the coordinator about paths in one request (a check, over the
// stream the client keeps open) and returns its answer as a status
// snapshot cut to them, the holders' liveness, and the owner this server
// acts for. Its cost follows the leases on the paths, not all leases.
func (s *Server) look(ctx context.Context, paths []string) (leasegate.Status, livenessOf, string, error) {
	cl, err := s.conn.get(ctx)
	if err != nil {
		return leasegate.Status{}, nil, "", err
	}
	v, err := cl.Check(ctx, paths)
	if errors.Is(err, gate.ErrNotFound) {
		return s.lookAll(ctx, cl) // a coordinator started before POST /v1/check existed
	}
	if err != nil {
		return leasegate.Status{}, nil, "", s.conn.check(cl, err)
	}
	st := leasegate.Status{Now: v.Now, Leases: v.Leases, Contentions: v.Contentions, Blockers: v.Blockers, LedgerWarning: v.Warning}
	return st, livenessOf(v.Liveness), s.id.named(v.Caller), nil
}

// lookAll is look as it was before the check: whoami and the whole
// status, for a coordinator that an older leasegate started and that
// answers POST /v1/check with LEASE_NOT_FOUND.
func (s *Server) lookAll(ctx context.Context, cl Coordinator) (leasegate.Status, livenessOf, string, error) {
	me, err := s.id.who(ctx, cl, false)
	if err != nil {
		return leasegate.Status{}, nil, "", s.conn.check(cl, err)
	}
	st, err := cl.Status(ctx)
	if err != nil {
		return leasegate.Status{}, nil, "", s.conn.check(cl, err)
	}
	return st, ownersLiveness(st), me, nil
}

// refusal is leases_check's answer for p when p names only files no worker
// may write, or only files in git's directory, which no gate holds, by the
// classifier the sidecar and the hooks use; a lease there would protect
// nothing.
func (s *Server) refusal(p string) (PathCheck, bool) {
	v := s.ws.LocatePattern(p)
	switch {
	case v.Refused():
		return PathCheck{Path: p, State: Refused, Reason: v.Why}, true
	case v.Class == workspace.GitDir:
		return PathCheck{Path: p, State: NotGated, Reason: v.Why}, true
	}
	return PathCheck{}, false
}

// checkPath is what the status snapshot st says of path p, names compared
// under f: on a volume that folds case docs/a.md is held by a check-out of
// Docs/**, as the coordinator's table has it.
func checkPath(st leasegate.Status, p, me string, live livenessOf, f gate.Folding) PathCheck {
	pc := PathCheck{Path: p, State: Free}
	for _, l := range st.Leases {
		if !l.Live(st.Now) || !f.Overlaps(l.Scope, p) {
			continue
		}
		h := holding(l, me, st.Now, live)
		pc.Holders = append(pc.Holders, h)
		if !h.Mine {
			pc.State = HeldByOther
		} else if pc.State == Free {
			pc.State = HeldByMe
		}
	}
	for _, c := range st.Contentions {
		if overlapsAny(c.Paths, p, f) {
			pc.Contentions = append(pc.Contentions, contention(c, st.Now))
		}
	}
	for _, b := range st.Blockers {
		if overlapsAny(b.Paths, p, f) || f.Overlap(b.Path, p) {
			pc.Blockers = append(pc.Blockers, b.ID)
		}
	}
	return pc
}

func checkText(out CheckOutput) string {
	var b strings.Builder
	if out.Warning != "" {
		fmt.Fprintf(&b, "WARNING: %s; a path said free may be held on another machine, and writes wait until this is mended\n", out.Warning)
	}
	if out.Me != "" {
		fmt.Fprintf(&b, "acting as %s\n", out.Me)
	}
	for _, pc := range out.Paths {
		fmt.Fprintf(&b, "%s: %s\n", pc.Path, strings.ReplaceAll(pc.State, "_", " "))
		if pc.Reason != "" {
			fmt.Fprintf(&b, "  %s\n", pc.Reason)
		}
		for _, h := range pc.Holders {
			fmt.Fprintf(&b, "  %s\n", holdingLine(h))
		}
		for _, c := range pc.Contentions {
			fmt.Fprintf(&b, "  %s\n", contentionLine(c))
		}
		for _, id := range pc.Blockers {
			fmt.Fprintf(&b, "  open blocker %s (blocker_show for the report)\n", id)
		}
	}
	return b.String()
}

func holdingLine(h Holding) string {
	who := h.Holder
	if h.Mine {
		who += " (me)"
	}
	line := fmt.Sprintf("%s lease %s by %s, held %s", h.Kind, h.LeaseID, who, h.HeldFor)
	if h.ExpiresIn != "" {
		line += ", expires in " + h.ExpiresIn
	}
	line += "; holder " + h.Liveness
	if len(h.Evidence) > 0 {
		line += " (" + strings.Join(h.Evidence, "; ") + ")"
	}
	return line
}

func contentionLine(c Contention) string {
	line := fmt.Sprintf("contention %s: %s waits, retried at %s (in %s)", c.ID, c.Requester, c.RetryAt, c.RetryIn)
	if c.BlockerID != "" {
		line += ", blocker " + c.BlockerID
	}
	return line
}

func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

func readOnly(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true}
}
