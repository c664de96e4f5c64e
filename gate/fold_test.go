package gate_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// foldedWorld is a world whose table folds case, as on macOS's default
// volumes and on Windows.
func foldedWorld(tb testing.TB) *world {
	return &world{tb: tb, table: gate.NewTableFor(gate.FoldCase)}
}

func TestFoldingOverlap(t *testing.T) {
	for _, c := range []struct {
		a, b          string
		exact, folded bool
	}{
		{"new/Bar.go", "new/BAR.go", false, true},
		{"NewDir/x", "newdir/x", false, true},
		{"NewDir/x", "newdir/y", false, false},
		{"Docs/**", "docs/a.md", false, true},
		{"docs/**", "DOCS", false, true},
		{"src/*.GO", "Src/main.go", false, true},
		{"SRC/*_test.go", "src/x_TEST.go", false, true},
		{"src/*.go", "src/main.gob", false, false},
		{"a/[A]?.go", "A/bc.GO", false, true},
		{"**/README.md", "x/y/readme.MD", false, true},
		{"*/k.go", "x/\u212a.go", false, true}, // the Kelvin sign folds with k
		{"stra\u00dfe.go", "STRA\u1e9eE.go", false, true},
		{"\u03c3.go", "\u03a3.go", false, true},
		{"\u00e9.go", "\u00c9.go", false, true},
		{"e\u0301.go", "\u00e9.go", false, false}, // normalization is not case
		{"a\xff.go", "a\xfe.go", false, false},    // a byte that is not UTF-8 is itself
		{"a\xff.go", "A\xff.go", false, true},
		{"ss.go", "\u00df.go", false, false}, // simple folding: ß is not "ss"
	} {
		if got := gate.Overlap(c.a, c.b); got != c.exact {
			t.Errorf("Overlap(%q, %q) = %v, want %v", c.a, c.b, got, c.exact)
		}
		for _, ab := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			if got := gate.FoldCase.Overlap(ab[0], ab[1]); got != c.folded {
				t.Errorf("FoldCase.Overlap(%q, %q) = %v, want %v", ab[0], ab[1], got, c.folded)
			}
			if got := gate.ExactCase.Overlap(ab[0], ab[1]); got != c.exact {
				t.Errorf("ExactCase.Overlap(%q, %q) = %v, want %v", ab[0], ab[1], got, c.exact)
			}
		}
	}
}

// TestFoldedNewFile: two spellings of a file that does not exist yet are
// one lease where the volume folds case: the second writer is refused,
// told who holds it, and the lease keeps the first writer's spelling. The
// first writer's own second spelling is covered by the lease it has.
func TestFoldedNewFile(t *testing.T) {
	for _, c := range []struct{ first, second string }{
		{"new/Bar.go", "new/BAR.go"},
		{"NewDir/x", "newdir/x"},
		{"d\u00e9j\u00e0/\u00c9t\u00e9.md", "D\u00c9J\u00c0/\u00e9T\u00c9.MD"},
	} {
		w := foldedWorld(t)
		l := w.grant(write("alice", c.first), t0)
		d := w.decide(write("bob", c.second), t0)
		if d.Granted || d.Reason != gate.ReasonHeldByOther || d.Holder == nil || d.Holder.ID != l.ID {
			t.Fatalf("bob's Decide(write %s) with alice holding %s = %s holder %v, want %s by alice", c.second, c.first, d.Reason, d.Holder, gate.ReasonHeldByOther)
		}
		if want := c.second + " is held by alice"; !strings.HasPrefix(d.Message, want) {
			t.Errorf("message = %q, want it to start %q", d.Message, want)
		}
		if got := d.Holder.Scope.Paths; len(got) != 1 || got[0] != c.first {
			t.Errorf("holder's paths = %q, want the spelling granted, %q", got, c.first)
		}
		if d := w.decide(write("alice", c.second), t0); !d.Granted || len(d.Events) != 0 || len(d.Covered) != 1 {
			t.Errorf("alice's Decide(write %s) = %s with %d events, want covered by her lease on %s", c.second, d.Reason, len(d.Events), c.first)
		}
		if n := w.table.ActiveCount(); n != 1 {
			t.Errorf("ActiveCount() = %d, want 1", n)
		}
		w.grant(on(gate.OpRelease, "alice", l), t0)
		if got := w.grant(write("bob", c.second), t0); got.Scope.Paths[0] != c.second {
			t.Errorf("bob's lease after alice's release is on %q, want %q", got.Scope.Paths[0], c.second)
		}
	}
}

// TestExactCaseTellsSpellingsApart: a table that does not fold (Linux)
// grants the two spellings to two writers, as two files.
func TestExactCaseTellsSpellingsApart(t *testing.T) {
	w := newWorld(t)
	w.grant(write("alice", "new/Bar.go"), t0)
	w.grant(write("bob", "new/BAR.go"), t0)
	w.grant(checkout("carol", sparse("Docs/**")), t0)
	w.grant(write("dave", "docs/a.md"), t0)
	if n := w.table.ActiveCount(); n != 4 {
		t.Fatalf("ActiveCount() = %d, want 4", n)
	}
}

// TestFoldedGlobs: a glob excludes every spelling of what it matches, in
// both orders, and check-outs of overlapping scopes spelt in other cases
// are refused; the full scope overlaps everything as before.
func TestFoldedGlobs(t *testing.T) {
	for _, c := range []struct {
		held, asked gate.Request
	}{
		{checkout("alice", sparse("Docs/**")), write("bob", "docs/a.md")},
		{write("alice", "docs/a.md"), checkout("bob", sparse("DOCS/**"))},
		{checkout("alice", sparse("Src/**")), checkout("bob", sparse("src/*.go"))},
		{checkout("alice", fileScope("SRC/Main.go")), checkout("bob", sparse("src/*.GO"))},
		{checkout("alice", sparse("**/*.MD")), write("bob", "a/b/readme.md")},
		{checkout("alice", fullScope()), write("bob", "ANY/thing.go")},
		{write("alice", "Lib/X.ts"), checkout("bob", fullScope())},
	} {
		w := foldedWorld(t)
		l := w.grant(c.held, t0)
		if d := w.decide(c.asked, t0); d.Granted || d.Reason != gate.ReasonHeldByOther || d.Holder.ID != l.ID {
			t.Errorf("Decide(%v) with alice holding %v = %s, want %s by alice", c.asked.Scope, c.held.Scope, d.Reason, gate.ReasonHeldByOther)
		}
		if got := w.table.Overlapping(c.asked.Scope); len(got) != 1 || got[0].ID != l.ID {
			t.Errorf("Overlapping(%v) = %v, want alice's lease on %v", c.asked.Scope, got, c.held.Scope)
		}
	}
}

// TestFoldedPairs: a pair leased under one spelling excludes the pair's
// other spelling.
func TestFoldedPairs(t *testing.T) {
	rules, err := gate.CompilePairRules(gate.DefaultPairRules)
	if err != nil {
		t.Fatal(err)
	}
	w := foldedWorld(t)
	w.grant(write("alice", gate.ExpandPairs([]string{"pkg/Foo.go"}, rules)...), t0)
	for _, p := range []string{"PKG/FOO_test.go", "pkg/foo.go"} {
		paths := gate.ExpandPairs([]string{p}, rules)
		if d := w.decide(write("bob", paths...), t0); d.Granted || d.Reason != gate.ReasonHeldByOther {
			t.Errorf("bob's Decide(write %q) = %s, want %s", paths, d.Reason, gate.ReasonHeldByOther)
		}
	}
}

// TestFoldedRequestPaths: one request naming one path in two spellings
// takes one lease.
func TestFoldedRequestPaths(t *testing.T) {
	for _, n := range []int{1, 10} { // a few paths are scanned, many are looked up
		w := foldedWorld(t)
		var paths []string
		for i := range n {
			paths = append(paths, fmt.Sprintf("d/f%d.go", i), fmt.Sprintf("D/F%d.GO", i))
		}
		d := w.decide(write("alice", paths...), t0)
		if !d.Granted || len(d.Events) != n {
			t.Errorf("Decide(write %q) = %s with %d events, want %d grants", paths, d.Reason, len(d.Events), n)
		}
	}
}

// TestFoldedManyNames runs the index past the point where a directory
// keeps its subdirectories and files in maps: every spelling is still
// found, and released names are gone under every spelling.
func TestFoldedManyNames(t *testing.T) {
	w := foldedWorld(t)
	var leases []gate.Lease
	for i := range 40 {
		leases = append(leases, w.grant(write("alice", fmt.Sprintf("big/File%02d.go", i), fmt.Sprintf("Dir%02d/x.go", i)), t0))
	}
	for i := range 40 {
		for _, p := range []string{fmt.Sprintf("BIG/file%02d.GO", i), fmt.Sprintf("dir%02d/X.go", i)} {
			if d := w.decide(write("bob", p), t0); d.Granted {
				t.Fatalf("bob's Decide(write %s) granted with alice holding it in another case", p)
			}
		}
	}
	for _, l := range leases {
		w.grant(on(gate.OpRelease, "alice", l), t0)
	}
	for _, l := range w.table.ByOwner("alice") {
		w.grant(on(gate.OpRelease, "alice", l), t0)
	}
	for i := range 40 {
		w.grant(write("bob", fmt.Sprintf("BIG/FILE%02d.GO", i), fmt.Sprintf("DIR%02d/X.GO", i)), t0)
	}
	if d := w.decide(write("alice", "big/file07.go"), t0); d.Granted || d.Holder.Owner.Name != "bob" {
		t.Fatalf("alice's Decide(write big/file07.go) = %s, want held by bob", d.Reason)
	}
}

// TestFoldedReplayKeepsCaseOnlyOverlaps: a ledger in which a coordinator
// that told case apart granted two spellings to two owners replays into a
// folding table (refusing it would stop the coordinator from starting);
// both leases exclude everyone else, while an overlap in the same case is
// still a corrupt ledger.
func TestFoldedReplayKeepsCaseOnlyOverlaps(t *testing.T) {
	exact := newWorld(t)
	a := exact.grant(write("alice", "new/Bar.go"), t0)
	b := exact.grant(write("bob", "NEW/BAR.GO"), t0)
	exact.grant(checkout("carol", sparse("Docs/**")), t0)
	exact.grant(write("dave", "docs/x.md"), t0)
	folded := gate.NewTableFor(gate.FoldCase)
	for _, e := range exact.log {
		if err := folded.Apply(e); err != nil {
			t.Fatalf("folding table: Apply(seq %d %s) = %v, want the ledger kept", e.Seq, e.Type, err)
		}
	}
	if got := folded.Overlapping(fileScope("new/bar.go")); len(got) != 2 || got[0].ID != a.ID || got[1].ID != b.ID {
		t.Fatalf("Overlapping(new/bar.go) = %v, want alice's and bob's leases", got)
	}
	if d := gate.Decide(write("erin", "New/bar.go"), folded, t0); d.Granted || d.Holder.ID != a.ID {
		t.Fatalf("erin's Decide(write New/bar.go) = %s, want held by alice", d.Reason)
	}
	e := grantEvent("01JSAMECASE000000000000001", "erin", folded.LastToken()+1, fileScope("new/Bar.go"), time.Time{})
	e.Seq = folded.LastSeq() + 1
	if err := folded.Apply(e); !errors.Is(err, gate.ErrAlreadyLeased) {
		t.Fatalf("Apply(erin's grant of new/Bar.go, held by alice) = %v, want %v", err, gate.ErrAlreadyLeased)
	}
}

// TestFoldedClone: a clone folds as its original does.
func TestFoldedClone(t *testing.T) {
	w := foldedWorld(t)
	w.grant(write("alice", "new/Bar.go"), t0)
	c := w.table.Clone()
	if c.Folding() != gate.FoldCase {
		t.Fatalf("clone's Folding() = %v, want %v", c.Folding(), gate.FoldCase)
	}
	if d := gate.Decide(write("bob", "NEW/bar.GO"), c, t0); d.Granted {
		t.Fatal("bob's Decide(write NEW/bar.GO) on the clone granted, want held by alice")
	}
}

// TestFoldedAlreadyHeld: where the volume folds case, an owner acquiring
// again, in another case, the check-out it holds is told it holds it; a
// scope that differs in more than case is still refused, and a table that
// does not fold never takes the two spellings for one.
func TestFoldedAlreadyHeld(t *testing.T) {
	w := foldedWorld(t)
	l := w.grant(checkout("alice", sparse("Docs/**", "src/*.go")), t0)
	for _, c := range []struct {
		scope gate.Scope
		want  bool
	}{
		{sparse("docs/**", "SRC/*.GO"), true},
		{sparse("src/*.go", "DOCS/**", "Src/*.go"), true},
		{sparse("docs/**"), false},
		{fileScope("docs/**", "src/*.go"), false},
	} {
		err := w.decide(checkout("alice", c.scope), t0).Err()
		if got, ok := gate.FoldCase.AlreadyHeld(err, "alice", c.scope, nil); ok != c.want || (ok && got.ID != l.ID) {
			t.Errorf("FoldCase.AlreadyHeld(%v, alice, %q) = %s, %v, want %v", err, c.scope.Paths, got.ID, ok, c.want)
		}
		if _, ok := gate.ExactCase.AlreadyHeld(err, "alice", c.scope, nil); ok {
			t.Errorf("ExactCase.AlreadyHeld(%v, alice, %q) = true, want false: the spellings are two scopes", err, c.scope.Paths)
		}
	}
}

// TestFoldedCoversTree: a subtree lease spelt in one case takes the
// directory whole in every spelling where the volume folds case, name by
// name, so a folded name of another length still lines up.
func TestFoldedCoversTree(t *testing.T) {
	for _, c := range []struct {
		pattern, dir  string
		exact, folded bool
	}{
		{"Vendor/**", "vendor", false, true},
		{"Vendor/**", "VENDOR/lib/x", false, true},
		{"a/**", "a", true, true},
		{"A/**", "ab", false, false},
		{"A/B/**", "a", false, false},
		{"\u212a/**", "k/x", false, true}, // the Kelvin sign is three bytes, k one
		{"\u212a/**", "kx/x", false, false},
		{"*/**", "a", false, false},
		{"**", "Any/Where", true, true},
	} {
		s := sparse(c.pattern)
		if got := gate.ExactCase.CoversTree(s, c.dir); got != c.exact || s.CoversTree(c.dir) != c.exact {
			t.Errorf("ExactCase.CoversTree(%q, %q) = %v, want %v", c.pattern, c.dir, got, c.exact)
		}
		if got := gate.FoldCase.CoversTree(s, c.dir); got != c.folded {
			t.Errorf("FoldCase.CoversTree(%q, %q) = %v, want %v", c.pattern, c.dir, got, c.folded)
		}
	}
}

// TestFoldedTouches: the history of a path holds the events that name it
// or grant it in another case where the volume folds case.
func TestFoldedTouches(t *testing.T) {
	l := gate.Lease{ID: "01J00000000000000000000000", Owner: owner("alice"), Scope: sparse("Src/X.go", "Docs/**")}
	grant := gate.Event{Type: gate.EventGranted, Lease: &l}
	contention := gate.Event{Type: gate.EventContention, Path: "Lib/Y.go", LeaseID: "01J00000000000000000000001"}
	for _, c := range []struct {
		e             gate.Event
		p             string
		exact, folded bool
	}{
		{grant, "src/x.go", false, true},
		{grant, "docs/a.md", false, true},
		{grant, "Src/X.go", true, true},
		{grant, "src/y.go", false, false},
		{contention, "lib/y.GO", false, true},
		{contention, "lib/z.go", false, false},
	} {
		if got := gate.ExactCase.Touches(&c.e, gate.NoLease, c.p); got != c.exact || c.e.Touches(gate.NoLease, c.p) != c.exact {
			t.Errorf("ExactCase.Touches(%s, %q) = %v, want %v", c.e.Type, c.p, got, c.exact)
		}
		if got := gate.FoldCase.Touches(&c.e, gate.NoLease, c.p); got != c.folded {
			t.Errorf("FoldCase.Touches(%s, %q) = %v, want %v", c.e.Type, c.p, got, c.folded)
		}
	}
}
