package coordinator

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// Check answers what stands in the way of writing paths. Its cost grows with the leases, contentions
// and blockers on the asked paths, not with everything the coordinator
// holds, so an agent may ask before every edit.
func (c *Coordinator) Check(ctx context.Context, paths []string) (leasegate.CheckView, error) {
	scope, err := checkScope(paths)
	if err != nil {
		return leasegate.CheckView{}, err
	}
	caller, _ := c.Whoami(ctx) // never fails in process
	v := leasegate.CheckView{Caller: caller}
	c.mu.Lock()
	defer c.mu.Unlock()
	v.Now = c.clock.Now()
	v.Leases = nonNil(c.table.Overlapping(scope))
	v.Liveness = make(map[string]gate.Liveness, len(v.Leases))
	for _, l := range v.Leases {
		if o := c.owners[l.Owner.Name]; o != nil && v.Liveness[o.Name].Status == "" {
			v.Liveness[o.Name] = c.cfg.Liveness.Evaluate(o.subject(), v.Now)
		}
	}
	v.Contentions, v.Blockers = c.contentionsOn(scope), c.blockersOn(scope, v.Now)
	v.Warning = c.ledgerWarning()
	return v, nil
}

// checkScope is the sparse scope of a check's paths, each cleaned.
func checkScope(paths []string) (gate.Scope, error) {
	switch {
	case len(paths) == 0:
		return gate.Scope{}, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "check: paths is empty"}
	case len(paths) > leasegate.MaxCheckPaths:
		return gate.Scope{}, &gate.DeniedError{Reason: gate.ReasonInputInvalid,
			Message: fmt.Sprintf("check: %d paths is over the limit of %d", len(paths), leasegate.MaxCheckPaths)}
	}
	s := gate.Scope{Type: gate.ScopeSparse, Paths: make([]string, 0, len(paths))}
	for _, p := range paths {
		cp, err := gate.CleanPath(p)
		if err != nil {
			return gate.Scope{}, gate.AsDenied(err)
		}
		s.Paths = append(s.Paths, cp)
	}
	return s, nil
}

// contentionsOn returns the waiting contentions on paths overlapping s,
// sorted by id. Call with c.mu held.
func (c *Coordinator) contentionsOn(s gate.Scope) []leasegate.ContentionView {
	out := []leasegate.ContentionView{}
	for _, con := range c.contentions {
		if con.view.Outcome == leasegate.Contended && overlapsScope(con.view.Paths, s) {
			out = append(out, con.view)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// blockersOn returns the open blocker reports on paths overlapping s.
// Call with c.mu held.
func (c *Coordinator) blockersOn(s gate.Scope, now time.Time) []blocker.Report {
	out := []blocker.Report{}
	for _, r := range c.book.Open() {
		if overlapsScope(r.Paths, s) || overlapsScope([]string{r.Path}, s) {
			out = append(out, r)
		}
	}
	return c.annotate(out, now)
}

// overlapsScope reports whether one of paths overlaps s.
func overlapsScope(paths []string, s gate.Scope) bool {
	return slices.ContainsFunc(paths, s.Overlaps)
}
