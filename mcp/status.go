package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// StatusInput is the (empty) input of leases_status.
type StatusInput struct{}

// OwnerState is one owner in leases_status.
type OwnerState struct {
	Name     string   `json:"name"`
	Me       bool     `json:"me"`
	Liveness string   `json:"liveness"`
	Evidence []string `json:"evidence,omitempty"`
	Leases   int      `json:"leases"`
	Stopped  string   `json:"stopped_at,omitempty" jsonschema:"when its stop-idle window opened: its leases go unless it writes again"`
}

// Ungated is a write seen on disk that no gate saw.
type Ungated struct {
	Path         string `json:"path"`
	At           string `json:"at"`
	Op           string `json:"op"`
	Reporter     string `json:"reporter,omitempty"`
	CollidedWith string `json:"collided_with,omitempty" jsonschema:"the holder of the lease the write went around"`
	NotRecorded  bool   `json:"not_recorded,omitempty" jsonschema:"the ledger refused to record it (a full disk): it is known only until the coordinator stops"`
}

// StatusOutput is the answer of leases_status.
type StatusOutput struct {
	Me            string       `json:"me,omitempty"`
	Now           string       `json:"now"`
	Owners        []OwnerState `json:"owners"`
	Leases        []Holding    `json:"leases"`
	Contentions   []Contention `json:"contentions"`
	Blockers      []Blocker    `json:"blockers"`
	Ungated       []Ungated    `json:"ungated"`
	LedgerWarning string       `json:"ledger_warning,omitempty"`
	WentBack      *WentBack    `json:"ledger_went_back,omitempty" jsonschema:"the shared ledger went back while the coordinator served it (etcd wiped or restored from an older snapshot): the leases it lost are gone"`
}

// WentBack is the shared ledger found ending before what had been read
// from it, as status --json gives it (ledger_went_back).
type WentBack struct {
	At        string      `json:"at"`
	SeenSeq   uint64      `json:"seen_seq" jsonschema:"the last seq read from the ledger before it went back"`
	EndsSeq   uint64      `json:"ends_seq" jsonschema:"the seq the ledger ends at now"`
	Cause     string      `json:"cause"`
	Lost      []LostLease `json:"lost_leases" jsonschema:"the leases the ledger held before and holds no more, at most 100 of them"`
	LostCount int         `json:"lost_count"`
	Summary   string      `json:"summary" jsonschema:"what happened, in one line"`
}

// LostLease is a lease the shared ledger lost when it went back.
type LostLease struct {
	ID    string   `json:"id"`
	Owner string   `json:"owner"`
	Kind  string   `json:"kind"`
	Paths []string `json:"paths"`
}

func (s *Server) addStatus() {
	sdk.AddTool(s.srv, &sdk.Tool{Name: "leases_status", Annotations: readOnly("Workspace lease status"),
		Description: "Everything the coordinator knows now: owners with liveness, active leases, writes waiting for their retry, " +
			"open blockers and writes that went around the gate."},
		s.status)
}

func (s *Server) status(ctx context.Context, _ *sdk.CallToolRequest, _ StatusInput) (*sdk.CallToolResult, StatusOutput, error) {
	cl, err := s.conn.get(ctx)
	if err != nil {
		return nil, StatusOutput{}, err
	}
	me, err := s.id.who(ctx, cl, false)
	if err != nil {
		return nil, StatusOutput{}, s.conn.check(cl, err)
	}
	st, err := cl.Status(ctx)
	if err != nil {
		return nil, StatusOutput{}, s.conn.check(cl, err)
	}
	out := StatusOutput{Me: me, Now: stamp(st.Now), LedgerWarning: st.LedgerWarning, Owners: []OwnerState{}, Leases: []Holding{},
		Contentions: []Contention{}, Blockers: []Blocker{}, Ungated: []Ungated{}}
	live := ownersLiveness(st)
	for _, o := range st.Owners {
		out.Owners = append(out.Owners, OwnerState{Name: o.Name, Me: o.Name == me, Liveness: string(o.Liveness.Status),
			Evidence: o.Liveness.Evidence, Leases: o.Leases, Stopped: stamp(o.StoppedAt)})
	}
	for _, l := range st.Leases {
		out.Leases = append(out.Leases, holding(l, me, st.Now, live))
	}
	for _, c := range st.Contentions {
		out.Contentions = append(out.Contentions, contention(c, st.Now))
	}
	for _, b := range st.Blockers {
		out.Blockers = append(out.Blockers, brief(b))
	}
	for _, u := range st.Ungated {
		w := Ungated{Path: u.Path, At: stamp(u.At), Op: u.Op, Reporter: u.Reporter, NotRecorded: u.NotRecorded}
		if u.Lease != nil {
			w.CollidedWith = u.Lease.Owner.Name
		}
		out.Ungated = append(out.Ungated, w)
	}
	out.WentBack = wentBack(st.WentBack)
	return textResult(statusText(out)), out, nil
}

func statusText(out StatusOutput) string {
	var b strings.Builder
	if out.Me != "" {
		fmt.Fprintf(&b, "acting as %s\n", out.Me)
	}
	if out.LedgerWarning != "" {
		fmt.Fprintf(&b, "ledger degraded: %s\n", out.LedgerWarning)
	}
	if out.WentBack != nil {
		fmt.Fprintf(&b, "WARNING: %s\n", out.WentBack.Summary)
	}
	fmt.Fprintf(&b, "owners (%d):\n", len(out.Owners))
	for _, o := range out.Owners {
		fmt.Fprintf(&b, "  %s: %s, %d lease(s)", o.Name, o.Liveness, o.Leases)
		if len(o.Evidence) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(o.Evidence, "; "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "leases (%d):\n", len(out.Leases))
	for _, h := range out.Leases {
		fmt.Fprintf(&b, "  %s on %s\n", holdingLine(h), scopeText(h))
	}
	fmt.Fprintf(&b, "contentions (%d):\n", len(out.Contentions))
	for _, c := range out.Contentions {
		fmt.Fprintf(&b, "  %s on %s\n", contentionLine(c), gate.ShownFewPaths(c.Paths, ", "))
	}
	fmt.Fprintf(&b, "open blockers (%d):\n", len(out.Blockers))
	for _, r := range out.Blockers {
		fmt.Fprintf(&b, "  %s\n", blockerLine(r))
	}
	fmt.Fprintf(&b, "ungated writes (%d):\n", len(out.Ungated))
	for _, u := range out.Ungated {
		fmt.Fprintf(&b, "  %s %s at %s", u.Op, u.Path, u.At)
		if u.CollidedWith != "" {
			fmt.Fprintf(&b, ", around %s's lease", u.CollidedWith)
		}
		if u.NotRecorded {
			b.WriteString(" (not recorded: the ledger refused it)")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func wentBack(w *leasegate.WentBack) *WentBack {
	if w == nil {
		return nil
	}
	out := &WentBack{At: stamp(w.At), SeenSeq: w.Seen, EndsSeq: w.Ends, Cause: w.Cause, Lost: []LostLease{},
		LostCount: w.LostCount, Summary: w.Summary()}
	for _, l := range w.Lost {
		out.Lost = append(out.Lost, LostLease{ID: string(l.ID), Owner: l.Owner, Kind: string(l.Kind), Paths: l.Paths})
	}
	return out
}

func scopeText(h Holding) string {
	if h.Scope == "full" {
		return "the whole workspace"
	}
	if h.NewDir {
		return gate.ShownFewPaths(h.Paths, ", ") + " (a new directory its holder created)"
	}
	return gate.ShownFewPaths(h.Paths, ", ")
}
