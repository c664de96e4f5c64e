package gate_test

import (
	"fmt"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// macFolding is how APFS and HFS+ compare names by default: case and
// Unicode normalization folded.
const macFolding = gate.FoldCase | gate.FoldNormalization

// TestFoldingNormalization: a name spelt with an accent composed (U+00E9)
// or decomposed ("e" and U+0301) is one name where the folding takes
// normalization (macOS, case-sensitive volumes included) and two where it
// does not (Linux, Windows), in Equal, Overlap and Key alike.
func TestFoldingNormalization(t *testing.T) {
	foldings := []gate.Folding{gate.ExactCase, gate.FoldCase, gate.FoldNormalization, macFolding}
	for _, c := range []struct {
		a, b string
		want [4]bool // under each of foldings
	}{
		{"docs/caf\u00e9.md", "docs/cafe\u0301.md", [4]bool{false, false, true, true}},
		{"docs/CAF\u00c9.md", "docs/cafe\u0301.md", [4]bool{false, false, false, true}},
		{"R\u00e9sum\u00e9s/cv.md", "re\u0301sume\u0301s/CV.md", [4]bool{false, false, false, true}},
		{"e\u0301\u0323.go", "\u1eb9\u0301.go", [4]bool{false, false, true, true}}, // marks in another order
		{"\u212b.go", "\u00c5.go", [4]bool{false, true, true, true}},               // the Angstrom sign is Å, and in å's case orbit
		{"a\xff.go", "A\xff.go", [4]bool{false, true, false, true}},                // a byte that is not UTF-8 is itself
		{"caf\u00e9.md", "cafe.md", [4]bool{false, false, false, false}},
	} {
		for i, f := range foldings {
			for _, ab := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
				if got := f.Equal(ab[0], ab[1]); got != c.want[i] {
					t.Errorf("%v: Equal(%q, %q) = %v, want %v", f, ab[0], ab[1], got, c.want[i])
				}
				if got := f.Overlap(ab[0], ab[1]); got != c.want[i] {
					t.Errorf("%v: Overlap(%q, %q) = %v, want %v", f, ab[0], ab[1], got, c.want[i])
				}
			}
			if got := f.Key(c.a) == f.Key(c.b); got != c.want[i] {
				t.Errorf("%v: Key(%q) == Key(%q) is %v, want %v", f, c.a, c.b, got, c.want[i])
			}
		}
	}
}

// TestNormalizedGlobs: a glob matches a name however its accents are
// composed where the folding takes normalization; `?` stands for the
// accented letter whole.
func TestNormalizedGlobs(t *testing.T) {
	for _, c := range []struct {
		pattern, p string
		mac        bool // under macFolding; never under FoldCase
	}{
		{"caf?.md", "cafe\u0301.md", true},
		{"Caf\u00e9/**", "cafe\u0301/x.md", true},
		{"**/*\u00e9.md", "a/B/CAFE\u0301.MD", true},
		{"*e\u0301*", "x\u00e9y", true},
		{"caf??.md", "cafe\u0301.md", false},
	} {
		if got := macFolding.Match(c.pattern, c.p); got != c.mac {
			t.Errorf("%v: Match(%q, %q) = %v, want %v", macFolding, c.pattern, c.p, got, c.mac)
		}
		if got := gate.FoldCase.Match(c.pattern, c.p); got && c.pattern != "caf??.md" {
			t.Errorf("%v: Match(%q, %q) = true, want false (NTFS does not normalize)", gate.FoldCase, c.pattern, c.p)
		}
	}
}

// TestNormalizedNewFile: two writers creating café.md, one with the
// accent composed and one decomposed, get one lease on macOS, whether or
// not the volume folds case: the second is refused, told who holds it.
// On Windows (case folded only) they are two files and two leases.
func TestNormalizedNewFile(t *testing.T) {
	composed, decomposed := "notes/caf\u00e9.md", "notes/cafe\u0301.md"
	for _, f := range []gate.Folding{gate.FoldNormalization, macFolding} {
		w := &world{tb: t, table: gate.NewTableFor(f)}
		l := w.grant(write("alice", composed), t0)
		d := w.decide(write("bob", decomposed), t0)
		if d.Granted || d.Reason != gate.ReasonHeldByOther || d.Holder == nil || d.Holder.ID != l.ID {
			t.Fatalf("%v: bob's Decide(write %q) with alice holding %q = %s, want %s by alice", f, decomposed, composed, d.Reason, gate.ReasonHeldByOther)
		}
		if d := w.decide(write("alice", decomposed), t0); !d.Granted || len(d.Events) != 0 {
			t.Errorf("%v: alice's Decide(write %q) = %s with %d events, want covered by her lease", f, decomposed, d.Reason, len(d.Events))
		}
		if d := w.decide(write("carol", "NOTES/CAFE\u0301.MD"), t0); d.Granted != (f&gate.FoldCase == 0) {
			t.Errorf("%v: carol's Decide(write in capitals) granted = %v", f, d.Granted)
		}
	}
	w := &world{tb: t, table: gate.NewTableFor(gate.FoldCase)}
	w.grant(write("alice", composed), t0)
	w.grant(write("bob", decomposed), t0)
	if n := w.table.ActiveCount(); n != 2 {
		t.Fatalf("case folded only: ActiveCount() = %d, want 2", n)
	}
}

// TestNormalizedManyNames runs the index past the point where a directory
// keeps its subdirectories and files in maps: a name leased decomposed is
// found composed, and released under either spelling.
func TestNormalizedManyNames(t *testing.T) {
	w := &world{tb: t, table: gate.NewTableFor(macFolding)}
	var leases []gate.Lease
	for i := range 40 {
		leases = append(leases, w.grant(write("alice", fmt.Sprintf("big/Cafe\u0301%02d.md", i), fmt.Sprintf("Re\u0301s%02d/x.md", i)), t0))
	}
	for i := range 40 {
		for _, p := range []string{fmt.Sprintf("BIG/caf\u00e9%02d.md", i), fmt.Sprintf("r\u00e9s%02d/X.md", i)} {
			if d := w.decide(write("bob", p), t0); d.Granted {
				t.Fatalf("bob's Decide(write %q) granted with alice holding it decomposed", p)
			}
		}
	}
	for _, l := range leases { // each path is a lease of its own
		w.grant(on(gate.OpRelease, "alice", l), t0)
	}
	for _, l := range w.table.ByOwner("alice") {
		w.grant(on(gate.OpRelease, "alice", l), t0)
	}
	for i := range 40 {
		w.grant(write("bob", fmt.Sprintf("big/caf\u00e9%02d.md", i)), t0)
	}
	if d := w.decide(write("alice", "big/cafe\u030107.md"), t0); d.Granted || d.Holder.Owner.Name != "bob" {
		t.Fatalf("alice's Decide(write big/cafe\u0301%02d.md) = %s, want held by bob", 7, d.Reason)
	}
}
