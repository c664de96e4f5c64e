package gate

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Op is what a request asks of the lease table.
type Op string

const (
	OpAcquire  Op = "acquire"  // take a lease on Scope (auto or checkout)
	OpRenew    Op = "renew"    // extend a check-out lease by TTL from now
	OpRelease  Op = "release"  // the holder gives a lease up
	OpValidate Op = "validate" // check-in validation: is the lease still good
	OpCheckin  Op = "checkin"  // validate, then complete the lease
	OpEvict    Op = "evict"    // an admin ends a lease with a reason
)

// Request is one lease operation. Owner.Name is always the requester; Token
// is the fencing token of LeaseID for renew, release, validate and checkin.
type Request struct {
	Op      Op            `json:"op"`
	Owner   Owner         `json:"owner"`
	Kind    Kind          `json:"kind,omitempty"`
	Scope   Scope         `json:"scope,omitzero"`
	TTL     time.Duration `json:"ttl,omitempty"`
	LeaseID LeaseID       `json:"lease_id,omitempty"`
	Token   uint64        `json:"token,omitempty"`
	Reason  string        `json:"reason,omitempty"`
	Admin   string        `json:"admin,omitempty"` // set only once the admin token was checked
}

// Snapshot is the read side of the lease table that Decide needs.
// Folding is how Overlapping compares names; Decide compares the paths of
// a request with each other and with the leases it returns the same way.
type Snapshot interface {
	Lease(id LeaseID) (Lease, bool)
	Overlapping(s Scope) []Lease
	LastToken() uint64
	Folding() Folding
}

var _ Snapshot = (*Table)(nil)

// Decision is Decide's answer. On a grant, Events are what to append to the
// ledger, in order; lease ids of new grants are left empty for the caller to
// fill. On a deny, Holder is the conflicting lease with the lowest fencing
// token and Conflicts lists all of them.
type Decision struct {
	Granted   bool          `json:"granted"`
	Reason    Reason        `json:"reason"`
	Message   string        `json:"message,omitempty"`
	Holder    *Lease        `json:"holder,omitempty"`
	Conflicts []Lease       `json:"conflicts,omitempty"`
	Lease     *Lease        `json:"lease,omitempty"`        // the lease acted on (renew, release, validate, checkin, evict)
	Covered   []Lease       `json:"covered,omitempty"`      // own leases that already cover an acquired path
	Remaining time.Duration `json:"remaining_ns,omitempty"` // validate and checkin: time left before expiry
	Events    []Event       `json:"-"`
}

// Err returns nil for a grant and a *DeniedError otherwise.
func (d Decision) Err() error {
	if d.Granted {
		return nil
	}
	return &DeniedError{Reason: d.Reason, Message: d.Message, Holder: d.Holder}
}

// Decide evaluates req against the snapshot at now. It is a pure function:
// the same request, snapshot and now give the same decision.
func Decide(req Request, snap Snapshot, now time.Time) Decision {
	if err := validOwner(req.Owner.Name); err != nil {
		return deny(ReasonInputInvalid, "owner: %v", err)
	}
	switch req.Op {
	case OpAcquire:
		return decideAcquire(req, snap, now)
	case OpRenew, OpRelease, OpValidate, OpCheckin:
		return decideHolderOp(req, snap, now)
	case OpEvict:
		return decideEvict(req, snap, now)
	}
	return deny(ReasonInputInvalid, "unknown op %q", req.Op)
}

func deny(r Reason, format string, args ...any) Decision {
	return Decision{Reason: r, Message: fmt.Sprintf(format, args...)}
}

// ValidID checks an id or name from outside: non-empty, at most MaxIDLen
// bytes, printable, no spaces or slashes.
func ValidID(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty")
	case len(s) > MaxIDLen:
		return fmt.Errorf("%d bytes is over the %d byte limit", len(s), MaxIDLen)
	}
	if plainID(s) {
		return nil
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) || r == '/' {
			return fmt.Errorf("%q has a character that is not allowed (%q)", s, r)
		}
	}
	return nil
}

// plainID reports whether s is printable ASCII without spaces or slashes:
// the common case of ValidID, decided without decoding runes.
func plainID(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '/' {
			return false
		}
	}
	return true
}

func validOwner(name string) error { return ValidID(name) }

func validScope(req Request) error {
	s := req.Scope
	switch s.Type {
	case ScopeFull:
		if len(s.Paths) > 0 {
			return fmt.Errorf("full scope takes no paths")
		}
		return nil
	case ScopeFile, ScopeSparse:
	default:
		return fmt.Errorf("unknown scope type %q", s.Type)
	}
	if len(s.Paths) == 0 || len(s.Paths) > MaxPaths {
		return inputErrorf(ReasonBudgetExceeded, "%d paths; want 1 to %d", len(s.Paths), MaxPaths)
	}
	for i, p := range s.Paths {
		c, err := CleanPath(p)
		if err != nil {
			return err
		}
		if c != p {
			return fmt.Errorf("path %q is not clean (want %q)", p, c)
		}
		// A check-out is asked for by a person or an agent, who would
		// otherwise hold a lease on "a.go, a.go" for naming a file twice
		// (a.go and ./a.go); a write's own paths are left as they come.
		if req.Kind == KindCheckout && slices.Contains(s.Paths[:i], p) {
			return fmt.Errorf("path %q is named twice", p)
		}
		if s.Type == ScopeFile && IsGlob(p) {
			return fmt.Errorf("file scope path %q is a glob; use sparse scope", p)
		}
	}
	return validFiles(s)
}

func decideAcquire(req Request, snap Snapshot, now time.Time) Decision {
	if err := validScope(req); err != nil {
		return deny(ReasonOf(err), "scope: %v", err)
	}
	ttl, d := acquireTTL(req)
	if d != nil {
		return *d
	}
	var expired []Event
	var conflicts, covered []Lease
	for _, l := range snap.Overlapping(req.Scope) { // each lease once
		switch {
		case l.Expired(now):
			expired = append(expired, Event{Type: EventExpired, At: now, LeaseID: l.ID, Actor: "coordinator", Reason: "ttl elapsed"})
		case !l.HeldBy(req.Owner.Name):
			conflicts = append(conflicts, l)
		case req.Kind == KindCheckout && l.Kind == KindCheckout:
			conflicts = append(conflicts, l) // overlapping check-outs are refused even for one owner
		default:
			covered = append(covered, l)
		}
	}
	if len(conflicts) > 0 {
		h := conflicts[0]
		reason := ReasonHeldByOther
		if h.HeldBy(req.Owner.Name) {
			reason = ReasonScopeOverlap
		}
		return Decision{Reason: reason, Holder: &h, Conflicts: conflicts,
			Message: fmt.Sprintf("%s is held by %s (lease %s, since %s)", conflictPath(h, req.Scope, snap.Folding()), h.Owner.Where(), h.ID, h.AcquiredAt.UTC().Format(time.RFC3339))}
	}
	return Decision{Granted: true, Reason: ReasonOK, Covered: covered,
		Events: grantEvents(expired, req, covered, snap, ttl, now)}
}

func acquireTTL(req Request) (time.Duration, *Decision) {
	switch req.Kind {
	case KindAuto:
		if req.TTL != 0 {
			d := deny(ReasonTTLOutOfBounds, "auto leases have no ttl (got %s); they end with their owner", req.TTL)
			return 0, &d
		}
		if req.Scope.Type == ScopeFull {
			d := deny(ReasonInputInvalid, "auto leases cannot take the full scope")
			return 0, &d
		}
		return 0, nil
	case KindCheckout:
		return checkoutTTL(req.TTL)
	}
	d := deny(ReasonInputInvalid, "unknown lease kind %q", req.Kind)
	return 0, &d
}

func checkoutTTL(ttl time.Duration) (time.Duration, *Decision) {
	if ttl == 0 {
		return DefaultCheckoutTTL, nil
	}
	if ttl < MinCheckoutTTL || ttl > MaxCheckoutTTL {
		d := deny(ReasonTTLOutOfBounds, "ttl %s is outside %s..%s", ttl, MinCheckoutTTL, MaxCheckoutTTL)
		return 0, &d
	}
	return ttl, nil
}

// grantEvents appends the grants of an acquire to evs: one lease per path
// not already covered for an auto request, one lease for the whole scope
// for a check-out.
func grantEvents(evs []Event, req Request, covered []Lease, snap Snapshot, ttl time.Duration, now time.Time) []Event {
	last, fold := snap.LastToken(), snap.Folding()
	base := Lease{Owner: req.Owner, Kind: req.Kind, State: StateActive, AcquiredAt: now, LastHeartbeatAt: now}
	if req.Kind == KindCheckout {
		l := base
		l.Scope = Scope{Type: req.Scope.Type, Paths: append([]string(nil), req.Scope.Paths...), Files: slices.Clone(req.Scope.Files)}
		l.FencingToken = last + 1
		l.ExpiresAt = now.Add(ttl)
		return append(evs, Event{Type: EventGranted, At: now, Actor: req.Owner.Name, Lease: &l})
	}
	var seen map[string]bool
	if len(req.Scope.Paths) > 8 {
		seen = make(map[string]bool, len(req.Scope.Paths))
	}
	var buf []autoGrant
	for i, p := range req.Scope.Paths {
		if !firstSeen(req.Scope.Paths, i, seen, fold) || coveredBy(p, covered, fold) {
			continue
		}
		if buf == nil && evs == nil && len(req.Scope.Paths) == 1 {
			// The common case, one path and nothing expired: its lease
			// and its event in one allocation.
			one := new(oneGrant)
			buf, evs = one.grant[:0], one.event[:0]
		}
		if buf == nil {
			buf = make([]autoGrant, 0, len(req.Scope.Paths)-i) // never grows: the leases stay put
		}
		buf = append(buf, autoGrant{lease: base, path: [1]string{p}})
		g := &buf[len(buf)-1]
		l := &g.lease
		l.Scope = Scope{Type: ScopeFile, Paths: g.path[:]}
		if f, ok := req.Scope.FileOf(p); ok {
			g.file[0] = f
			l.Scope.Files = g.file[:]
		}
		if IsGlob(p) {
			l.Scope.Type = ScopeSparse
		}
		last++
		l.FencingToken = last
		evs = append(evs, Event{Type: EventGranted, At: now, Actor: req.Owner.Name, Lease: l})
	}
	return evs
}

// autoGrant is a new auto lease with the one path of its scope (and that
// path's identity), so that
// the grants of a request take one allocation.
type autoGrant struct {
	lease Lease
	path  [1]string
	file  [1]File // the path's identity, when the request has one
}

// oneGrant is the grant of a one-path request and its event.
type oneGrant struct {
	grant [1]autoGrant
	event [1]Event
}

// coveredBy reports whether a plain path p is matched by one of the leases,
// with names compared under f. A glob is never considered covered:
// overlap is not containment.
func coveredBy(p string, ls []Lease, f Folding) bool {
	if IsGlob(p) {
		return false
	}
	for _, l := range ls {
		if f.Covers(l.Scope, p) {
			return true
		}
	}
	return false
}

func conflictPath(h Lease, s Scope, f Folding) string {
	switch {
	case s.Type == ScopeFull && h.Scope.Type == ScopeFull:
		return "the workspace"
	case s.Type == ScopeFull:
		return ShownFewPaths(h.Scope.Paths, ", ") + " (in the whole workspace asked for)"
	}
	for _, p := range s.Paths {
		if f.Overlaps(h.Scope, p) {
			return ShownPath(p)
		}
	}
	if hp, p := SameFile(h, s); hp != "" {
		return fmt.Sprintf("%s (the same file as %s)", ShownPath(p), ShownPath(hp))
	}
	return ShownFewPaths(s.Paths, ", ")
}

// decideHolderOp handles renew, release, validate and checkin: all are
// owner-and-token gated and fail closed.
func decideHolderOp(req Request, snap Snapshot, now time.Time) Decision {
	h, d := holderLease(req, snap, now)
	if d != nil {
		return *d
	}
	l := &h.lease
	ok := Decision{Granted: true, Reason: ReasonOK, Lease: l, Remaining: l.Remaining(now)}
	switch req.Op {
	case OpRenew:
		return renewDecision(req, l, now)
	case OpRelease:
		h.event[0] = Event{Type: EventReleased, At: now, Actor: req.Owner.Name, LeaseID: l.ID, Reason: releaseReason(req.Reason)}
		ok.Events = h.event[:]
	case OpCheckin:
		h.event[0] = Event{Type: EventCompleted, At: now, Actor: req.Owner.Name, LeaseID: l.ID, Reason: "checked in"}
		ok.Events = h.event[:]
	}
	return ok
}

// heldLease is the lease a holder operation acts on and room for the
// one event it appends, in one allocation.
type heldLease struct {
	lease Lease
	event [1]Event
}

func releaseReason(r string) string {
	if r == "" {
		return "released by holder"
	}
	return r
}

// holderLease returns the lease a holder operation acts on, or the denial.
func holderLease(req Request, snap Snapshot, now time.Time) (*heldLease, *Decision) {
	if err := ValidID(string(req.LeaseID)); err != nil {
		d := deny(ReasonInputInvalid, "lease id: %v", err)
		return nil, &d
	}
	found := false
	h := new(heldLease)
	h.lease, found = snap.Lease(req.LeaseID)
	d, denied := holderDenial(req, &h.lease, found, now)
	if !denied {
		return h, nil
	}
	return h, withLease(d, &h.lease)
}

// withLease returns a copy of d about l: made only for a denial.
func withLease(d Decision, l *Lease) *Decision {
	d.Lease = l
	return &d
}

func holderDenial(req Request, l *Lease, found bool, now time.Time) (Decision, bool) {
	switch {
	case !found:
		return deny(ReasonNotFound, "no lease %s", req.LeaseID), true
	case !l.HeldBy(req.Owner.Name):
		return deny(ReasonOwnerMismatch, "lease %s is held by %s, not %s", l.ID, l.Owner.Name, req.Owner.Name), true
	case req.Token != l.FencingToken:
		return deny(ReasonTokenInvalid, "token %d does not match lease %s", req.Token, l.ID), true
	case l.State == StateEvicted:
		return deny(ReasonEvicted, "lease %s was evicted by %s: %s", l.ID, l.EndedBy, l.ReleaseReason), true
	case l.State == StateExpired || (l.State == StateActive && l.Expired(now)):
		return deny(ReasonExpired, "lease %s expired at %s", l.ID, l.ExpiresAt.UTC().Format(time.RFC3339)), true
	case l.State.Terminal():
		return deny(ReasonTerminal, "lease %s is already %s", l.ID, l.State), true
	}
	return Decision{}, false
}

func renewDecision(req Request, l *Lease, now time.Time) Decision {
	if l.Kind != KindCheckout {
		return deny(ReasonInputInvalid, "lease %s is an auto lease; only check-out leases are renewed", l.ID)
	}
	ttl, d := checkoutTTL(req.TTL)
	if d != nil {
		return *d
	}
	exp := now.Add(ttl)
	if !exp.After(l.ExpiresAt) {
		return deny(ReasonTTLOutOfBounds, "renewing lease %s for %s would not extend it past %s", l.ID, ttl, l.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return Decision{Granted: true, Reason: ReasonOK, Lease: l, Remaining: ttl,
		Events: []Event{{Type: EventRenewed, At: now, Actor: req.Owner.Name, LeaseID: l.ID, ExpiresAt: exp}}}
}

func decideEvict(req Request, snap Snapshot, now time.Time) Decision {
	switch {
	case req.Admin == "":
		return deny(ReasonAdminRequired, "eviction needs the admin token")
	case strings.TrimSpace(req.Reason) == "":
		return deny(ReasonInputInvalid, "eviction needs a reason")
	case len(req.Reason) > 1024:
		return deny(ReasonInputInvalid, "reason of %d bytes is over the 1024 byte limit", len(req.Reason))
	}
	if err := ValidID(string(req.LeaseID)); err != nil {
		return deny(ReasonInputInvalid, "lease id: %v", err)
	}
	l, found := snap.Lease(req.LeaseID)
	if !found {
		return deny(ReasonNotFound, "no lease %s", req.LeaseID)
	}
	if l.State.Terminal() {
		return Decision{Reason: ReasonTerminal, Lease: &l, Message: fmt.Sprintf("lease %s is already %s", l.ID, l.State)}
	}
	return Decision{Granted: true, Reason: ReasonOK, Lease: &l,
		Events: []Event{{Type: EventEvicted, At: now, Actor: req.Admin, LeaseID: l.ID, Reason: req.Reason}}}
}

// firstSeen reports whether paths[i] is not among paths[:i], with names
// compared under f. With many paths it uses and fills seen (keyed by the
// folded path under a folding); with few (most requests name one or two)
// seen is nil and it scans.
func firstSeen(paths []string, i int, seen map[string]bool, f Folding) bool {
	if seen == nil {
		return !slices.ContainsFunc(paths[:i], func(p string) bool { return f.Equal(p, paths[i]) })
	}
	key := f.folded(paths[i])
	if seen[key] {
		return false
	}
	seen[key] = true
	return true
}
