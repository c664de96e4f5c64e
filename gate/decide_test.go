package gate_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/leasegate/leasegate/gate"
)

func TestFirstWriteIsGranted(t *testing.T) {
	w := newWorld(t)
	for _, p := range []string{"x.go", "y.go", "z.go"} {
		l := w.grant(write("zoe", p), t0)
		w.grant(on(gate.OpRelease, "zoe", l), t0)
	}
	last := w.table.LastToken()
	now := t0.Add(time.Minute)
	d := gate.Decide(write("alice", "src/a.go", "src/b.go"), w.table, now)
	if !d.Granted || d.Reason != gate.ReasonOK || len(d.Events) != 2 {
		t.Fatalf("Decide(write src/a.go src/b.go) = %s with %d events, want two grants", d.Reason, len(d.Events))
	}
	for i, p := range []string{"src/a.go", "src/b.go"} {
		e := d.Events[i]
		want := gate.Lease{Owner: owner("alice"), Kind: gate.KindAuto, Scope: fileScope(p), State: gate.StateActive,
			FencingToken: last + uint64(i) + 1, AcquiredAt: now, LastHeartbeatAt: now}
		if e.Type != gate.EventGranted || e.Actor != "alice" || !e.At.Equal(now) || !reflect.DeepEqual(*e.Lease, want) {
			t.Fatalf("event %d = %+v lease %+v, want grant of %+v", i, e, *e.Lease, want)
		}
	}
}

func TestHeldByOtherIsDeterministic(t *testing.T) {
	w := newWorld(t)
	a := w.grant(write("alice", "src/a.go"), t0)
	w.grant(write("bob", "src/b.go"), t0.Add(-time.Hour)) // older in time, newer token
	for _, req := range []gate.Request{
		write("carol", "src/b.go", "src/a.go"),
		{Op: gate.OpAcquire, Owner: owner("carol"), Kind: gate.KindAuto, Scope: sparse("src/*")},
		checkout("carol", fullScope()),
	} {
		first := gate.Decide(req, w.table, t0.Add(time.Hour))
		if first.Granted || first.Reason != gate.ReasonHeldByOther || first.Holder.ID != a.ID || len(first.Conflicts) != 2 || len(first.Events) != 0 {
			t.Fatalf("Decide(%v) = %s holder %v, want %s by %s (lowest token)", req.Scope, first.Reason, first.Holder, gate.ReasonHeldByOther, a.ID)
		}
		var de *gate.DeniedError
		if err := first.Err(); !errors.Is(err, gate.ErrHeldByOther) || !errors.As(err, &de) || de.Holder.Owner.Name != "alice" || de.HeldSince(t0.Add(time.Hour)) != time.Hour {
			t.Fatalf("Err() = %v, want a DeniedError held by alice for 1h", err)
		}
		for range 20 {
			if again := gate.Decide(req, w.table, t0.Add(time.Hour)); !reflect.DeepEqual(again, first) {
				t.Fatalf("Decide is not deterministic: %+v then %+v", first, again)
			}
		}
	}
}

func TestOwnLeaseCovers(t *testing.T) {
	w := newWorld(t)
	l := w.grant(write("alice", "src/a.go"), t0)
	co := w.grant(checkout("alice", sparse("docs/**")), t0)
	tests := []struct {
		name    string
		req     gate.Request
		covered gate.LeaseID
	}{
		{"repeated write", write("alice", "src/a.go"), l.ID},
		{"write under own check-out", write("alice", "docs/a.md"), co.ID},
		{"write of the check-out's directory", write("alice", "docs"), co.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := gate.Decide(tt.req, w.table, t0.Add(time.Minute))
			if !d.Granted || len(d.Events) != 0 || len(d.Covered) != 1 || d.Covered[0].ID != tt.covered {
				t.Fatalf("Decide(%v) = %s, %d events, covered %v; want granted with no events, covered by %s", tt.req.Scope, d.Reason, len(d.Events), d.Covered, tt.covered)
			}
		})
	}
	d := gate.Decide(write("alice", "src/a.go", "src/new.go"), w.table, t0)
	if !d.Granted || len(d.Events) != 1 || d.Events[0].Lease.Scope.Paths[0] != "src/new.go" {
		t.Fatalf("Decide(write covered + new) events = %v, want one grant for src/new.go", d.Events)
	}
	dirRename := gate.Request{Op: gate.OpAcquire, Owner: owner("alice"), Kind: gate.KindAuto, Scope: sparse("docs/**")}
	if d := gate.Decide(dirRename, w.table, t0); !d.Granted || len(d.Events) != 1 {
		t.Fatalf("Decide(auto docs/** under own check-out) = %s with %d events, want a grant: a glob is never covered", d.Reason, len(d.Events))
	}
}

func TestOverlappingCheckoutBySameOwner(t *testing.T) {
	w := newWorld(t)
	co := w.grant(checkout("alice", sparse("docs/**")), t0)
	d := gate.Decide(checkout("alice", sparse("docs/api.md")), w.table, t0)
	if d.Granted || d.Reason != gate.ReasonScopeOverlap || d.Holder.ID != co.ID {
		t.Fatalf("Decide(alice checkout docs/api.md over her docs/**) = %s, want %s by %s", d.Reason, gate.ReasonScopeOverlap, co.ID)
	}
	w.grant(checkout("alice", sparse("src/**")), t0)
}

func TestMultiPathIsAllOrNothing(t *testing.T) {
	w := newWorld(t)
	w.grant(write("bob", "b.go"), t0)
	expired := checkout("dave", sparse("c.go"))
	expired.TTL = time.Minute
	old := w.grant(expired, t0)
	now := t0.Add(time.Hour)
	d := gate.Decide(write("alice", "a.go", "b.go", "c.go"), w.table, now)
	if d.Granted || len(d.Events) != 0 || d.Holder.Owner.Name != "bob" {
		t.Fatalf("Decide(write a.go b.go c.go) = %s with %d events, want denied by bob with no events", d.Reason, len(d.Events))
	}
	if ov := w.table.Overlapping(fileScope("a.go")); len(ov) != 0 {
		t.Fatalf("a.go leased after a refused request: %v", ov)
	}
	if w.lease(old.ID).State != gate.StateActive {
		t.Fatalf("a denied request expired a lease in the way")
	}
}

func TestPairs(t *testing.T) {
	rules, err := gate.CompilePairRules(append(slices.Clone(gate.DefaultPairRules), "src/{name}.ts -> tests/{name}.test.ts"))
	if err != nil {
		t.Fatalf("CompilePairRules = %v", err)
	}
	tests := []struct {
		in, want []string
	}{
		{[]string{"src/foo.go"}, []string{"src/foo.go", "src/foo_test.go"}},
		{[]string{"src/foo_test.go"}, []string{"src/foo_test.go", "src/foo.go"}},
		{[]string{"main.go"}, []string{"main.go", "main_test.go"}},
		{[]string{"a/b/c.go", "a/b/c_test.go"}, []string{"a/b/c.go", "a/b/c_test.go"}},
		{[]string{"src/x.ts"}, []string{"src/x.ts", "tests/x.test.ts"}},
		{[]string{"tests/x.test.ts"}, []string{"tests/x.test.ts", "src/x.ts"}},
		{[]string{"lib/x.ts", "README.md"}, []string{"lib/x.ts", "README.md"}},
		{[]string{"src/*.go"}, []string{"src/*.go"}},
	}
	for _, tt := range tests {
		if got := gate.ExpandPairs(tt.in, rules); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ExpandPairs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}

	w := newWorld(t)
	d := w.decide(write("alice", gate.ExpandPairs([]string{"src/foo.go"}, rules)...), t0)
	if !d.Granted || len(d.Events) != 2 {
		t.Fatalf("Decide(src/foo.go + pair) = %s with %d events, want both granted", d.Reason, len(d.Events))
	}
	if d := gate.Decide(write("bob", gate.ExpandPairs([]string{"src/foo_test.go"}, rules)...), w.table, t0); d.Granted || d.Holder.Owner.Name != "alice" {
		t.Fatalf("Decide(bob src/foo_test.go + pair) = %s, want held by alice", d.Reason)
	}
	w.grant(write("bob", "tests/x.test.ts"), t0)
	if d := w.decide(write("alice", gate.ExpandPairs([]string{"src/x.ts"}, rules)...), t0); d.Granted || len(d.Events) != 0 {
		t.Fatalf("Decide(alice src/x.ts + pair held by bob) = %s, want denied atomically", d.Reason)
	}
	if ov := w.table.Overlapping(fileScope("src/x.ts")); len(ov) != 0 {
		t.Fatalf("src/x.ts leased though its pair was refused: %v", ov)
	}
	// A pair is a name: whether the file exists is never asked.
	w.grant(write("carol", gate.ExpandPairs([]string{"cmd/does-not-exist.go"}, rules)...), t0)
	if ov := w.table.Overlapping(fileScope("cmd/does-not-exist_test.go")); len(ov) != 1 {
		t.Fatalf("missing pair file not leased: %v", ov)
	}
}

func TestCompilePairRulesErrors(t *testing.T) {
	for _, r := range []string{"src/{name}.go", "src/a.go -> src/b.go", "**/{name}.go -> tests/{name}.go", " -> x/{name}", "x/{name} -> "} {
		if _, err := gate.CompilePairRules([]string{r}); err == nil {
			t.Errorf("CompilePairRules(%q) = nil error, want one", r)
		}
	}
}

// TestDecideIsPure: the same request, snapshot and now give the same
// decision, on the live table and on a replayed copy of it.
func TestDecideIsPure(t *testing.T) {
	w := newWorld(t)
	a := w.grant(write("alice", "src/a.go"), t0)
	short := checkout("bob", sparse("docs/*"))
	short.TTL = time.Hour
	b := w.grant(short, t0)
	c := w.grant(checkout("carol", sparse("lib/**")), t0)
	replayed := gate.NewTable()
	for _, e := range w.log {
		if err := replayed.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	now := t0.Add(2 * time.Hour)
	reqs := []gate.Request{
		write("dave", "src/a.go", "docs/x.md"),
		write("dave", "docs/x.md", "new.go"),
		checkout("dave", fullScope()),
		on(gate.OpValidate, "alice", a),
		on(gate.OpRenew, "bob", b),
		on(gate.OpRenew, "carol", c),
		on(gate.OpCheckin, "carol", c),
		evict("root", c, "maintenance"),
		{Op: "steal", Owner: owner("dave")},
	}
	for _, req := range reqs {
		want := gate.Decide(req, w.table, now)
		for range 5 {
			if got := gate.Decide(req, w.table, now); !reflect.DeepEqual(got, want) {
				t.Fatalf("Decide(%s) = %+v, then %+v", req.Op, want, got)
			}
			if got := gate.Decide(req, replayed, now); !reflect.DeepEqual(got, want) {
				t.Fatalf("Decide(%s) on a replayed table = %+v, want %+v", req.Op, got, want)
			}
		}
	}
	d := gate.Decide(reqs[1], w.table, now)
	if types := eventTypes(d.Events); !reflect.DeepEqual(types, []gate.EventType{gate.EventExpired, gate.EventGranted, gate.EventGranted}) {
		t.Fatalf("Decide(write docs/x.md new.go) events = %v, want expiry of bob's lease then two grants", types)
	}
}

func TestDecideRejectsBadInput(t *testing.T) {
	many := make([]string, gate.MaxPaths+1)
	for i := range many {
		many[i] = "f" + strings.Repeat("x", i%7) + string(rune('a'+i%26))
	}
	tests := []struct {
		name string
		req  gate.Request
		want gate.Reason
	}{
		{"unknown op", gate.Request{Op: "steal", Owner: owner("a")}, gate.ReasonInputInvalid},
		{"unknown kind", gate.Request{Op: gate.OpAcquire, Owner: owner("a"), Kind: "forever", Scope: fileScope("x")}, gate.ReasonInputInvalid},
		{"unknown scope type", gate.Request{Op: gate.OpAcquire, Owner: owner("a"), Kind: gate.KindAuto, Scope: gate.Scope{Type: "repo", Paths: []string{"x"}}}, gate.ReasonInputInvalid},
		{"full scope with paths", checkout("a", gate.Scope{Type: gate.ScopeFull, Paths: []string{"x"}}), gate.ReasonInputInvalid},
		{"auto full scope", gate.Request{Op: gate.OpAcquire, Owner: owner("a"), Kind: gate.KindAuto, Scope: fullScope()}, gate.ReasonInputInvalid},
		{"no paths", write("a"), gate.ReasonBudgetExceeded},
		{"too many paths", write("a", many...), gate.ReasonBudgetExceeded},
		{"glob in file scope", write("a", "docs/*"), gate.ReasonInputInvalid},
		{"unclean path", write("a", "a/./b"), gate.ReasonInputInvalid},
		// An absolute or escaping path has the one code CleanPath gives it,
		// here as at the coordinator's edge.
		{"absolute path", write("a", "/etc/passwd"), gate.ReasonOutsideWorkspace},
		{"escaping path", write("a", "../x"), gate.ReasonOutsideWorkspace},
		{"NUL in path", write("a", "a\x00b"), gate.ReasonInputInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := gate.Decide(tt.req, gate.NewTable(), t0)
			if d.Reason != tt.want {
				t.Fatalf("Decide(%s) = %s (%s), want %s", tt.name, d.Reason, d.Message, tt.want)
			}
			if d.Granted || len(d.Events) != 0 {
				t.Fatalf("Decide(%s) granted %d events", tt.name, len(d.Events))
			}
		})
	}
}

func TestCleanPath(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"a/./b", "a/b", true},
		{"a//b", "a/b", true},
		{"a/b/../c", "a/c", true},
		{"dir/", "dir/**", true},
		{"dir/**/", "dir/**", true},
		{"./", "", false},
		{".", "", false},
		{"docs/*.md", "docs/*.md", true},
		{"a/..", "", false},
		{strings.Repeat("a", gate.MaxPathLen), strings.Repeat("a", gate.MaxPathLen), true},
		{"", "", false},
		{"/etc/passwd", "", false},
		{"/", "", false},
		{"..", "", false},
		{"../x", "", false},
		{"a/../../x", "", false},
		{"a\x00b", "", false},
		{`app/\[id\]/page.tsx`, `app/\[id]/page.tsx`, true}, // "]" needs no escape
		{`a\\b`, `a\b`, true},                               // nor a backslash before "b"
		{`a\b`, `a\b`, true},
		{`a\\*`, `a\\*`, true}, // a backslash before a glob
		{`x\*[\]a]\]`, `x\*[\]a]]`, true},
		{strings.Repeat("a", gate.MaxPathLen+1), "", false},
	}
	for _, tt := range tests {
		got, err := gate.CleanPath(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("CleanPath(%.20q) = %q, %v; want %q, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestSubtree(t *testing.T) {
	for in, want := range map[string]string{"": "**", ".": "**", "docs": "docs/**", "docs/": "docs/**", "app/[id]": `app/\[id]/**`} {
		if got := gate.Subtree(in); got != want {
			t.Errorf("Subtree(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCoversTree(t *testing.T) {
	tests := []struct {
		pattern, dir string
		want         bool
	}{
		{"**", "a/b", true},
		{"a/**", "a", true},
		{"a/**", "a/b/c", true},
		{"a/b/**", "a", false},   // a/x is not under a/b
		{"a/**", "ab", false},    // a sibling with a common prefix
		{"a/*", "a", false},      // one level only
		{"a/*/**", "a/b", false}, // a glob in the prefix: not checked, so no
		{"a/b.go", "a/b.go", false},
		{"*/**", "a", false},
		{`app/\[id]/**`, `app/\[id]`, true},
		{`app/\[id]/**`, `app/\[id]/x`, true},
		{`app/\[id]/**`, "app/i", false},
	}
	for _, tt := range tests {
		if got := gate.CoversTree(tt.pattern, tt.dir); got != tt.want {
			t.Errorf("CoversTree(%q, %q) = %v, want %v", tt.pattern, tt.dir, got, tt.want)
		}
	}
}

// TestValidIDASCII checks ValidID on every single ASCII byte, in an id of its
// own and inside one, against its definition: printable, not a space, not a
// slash.
func TestValidIDASCII(t *testing.T) {
	for c := range rune(0x80) {
		want := unicode.IsPrint(c) && !unicode.IsSpace(c) && c != '/'
		for _, id := range []string{string(c), "01J" + string(c) + "X"} {
			if got := gate.ValidID(id) == nil; got != want {
				t.Errorf("ValidID(%q) ok = %v, want %v", id, got, want)
			}
		}
	}
}
