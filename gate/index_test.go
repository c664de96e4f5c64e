package gate_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// indexModel is the brute-force reference for gate.Index: every scope in
// a map, scanned in full.
type indexModel map[gate.LeaseID]gate.Scope

// visit is what Index.Visit must report for query q: one "id pattern"
// line per overlapping pattern, and "id **" for every full-scope lease.
func (m indexModel) visit(q string, full bool) []string {
	var out []string
	for id, s := range m {
		if s.Type == gate.ScopeFull {
			out = append(out, string(id)+" **")
			continue
		}
		for _, p := range s.Paths {
			if full || gate.Overlap(p, q) {
				out = append(out, string(id)+" "+p)
			}
		}
	}
	slices.Sort(out)
	return out
}

func visitAll(x *gate.Index, q string, full bool) []string {
	var out []string
	x.Visit(q, full, func(id gate.LeaseID, p string) bool {
		out = append(out, string(id)+" "+p)
		return true
	})
	slices.Sort(out)
	return out
}

// randScope is a full scope one time in twenty, else one to three distinct
// patterns.
func randScope(r *rand.Rand) gate.Scope {
	if r.IntN(20) == 0 {
		return fullScope()
	}
	var ps []string
	for range 1 + r.IntN(3) {
		if p := randPattern(r); !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	return sparse(ps...)
}

func TestIndexMatchesBruteForce(t *testing.T) {
	r := testRand(t)
	x, model := gate.NewIndex(), indexModel{}
	check := func(stage string) {
		t.Helper()
		for range 300 {
			q := randPattern(r)
			if r.IntN(2) == 0 {
				q = gate.Literal(randName(r))
			}
			if got, want := visitAll(x, q, false), model.visit(q, false); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: Visit(%q) = %v, want %v", stage, q, got, want)
			}
		}
		if got, want := visitAll(x, "", true), model.visit("", true); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Visit(full) = %v, want %v", stage, got, want)
		}
		if got, want := x.Len(), len(model.visit("", true)); got != want {
			t.Fatalf("%s: Len() = %d, want %d", stage, got, want)
		}
	}
	for i := range 400 {
		id := gate.LeaseID(fmt.Sprintf("L%d", i))
		model[id] = randScope(r)
		x.Add(id, model[id])
	}
	check("after adds")
	for id, s := range model {
		if r.IntN(3) > 0 {
			x.Remove(id, s)
			delete(model, id)
		}
	}
	check("after removes")
	for i := range 100 {
		id := gate.LeaseID(fmt.Sprintf("M%d", i))
		model[id] = randScope(r)
		x.Add(id, model[id])
	}
	check("after re-adds")
	for id, s := range model {
		x.Remove(id, s)
		delete(model, id)
	}
	check("empty")
}

func TestIndexVisit(t *testing.T) {
	x := gate.NewIndex()
	x.Add("F", fullScope())
	x.Add("D", sparse("docs/**"))
	x.Add("S", fileScope("src/a.go", "src/b.go"))
	x.Add("G", sparse("**/*.go"))
	tests := []struct {
		q    string
		want []string
	}{
		{"docs/api.md", []string{"D docs/**", "F **"}},
		{"src/a.go", []string{"F **", "G **/*.go", "S src/a.go"}},
		{"src/*", []string{"F **", "G **/*.go", "S src/a.go", "S src/b.go"}},
		{"README", []string{"F **"}},
		{"docs", []string{"D docs/**", "F **"}},
	}
	for _, tt := range tests {
		if got := visitAll(x, tt.q, false); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Visit(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
	calls := 0
	x.Visit("src/a.go", false, func(gate.LeaseID, string) bool { calls++; return false })
	if calls != 1 {
		t.Errorf("Visit stopped by fn made %d calls, want 1", calls)
	}
	x.Remove("S", fileScope("src/a.go", "src/b.go"))
	x.Remove("S", fileScope("src/a.go")) // already gone: no effect
	x.Remove("F", fullScope())
	if got, want := visitAll(x, "src/*", false), []string{"G **/*.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Visit(src/*) after Remove = %v, want %v", got, want)
	}
	if x.Len() != 2 {
		t.Errorf("Len() = %d, want 2", x.Len())
	}
}

// TestIndexDeepPathsMatchBruteForce indexes plain paths mostly alone in
// their directories (kept without the directories between), with globs
// and second paths among them that make those directories, past the
// point where a directory keeps its entries in maps, and removes them
// again: the index answers as a scan of every pattern does throughout.
func TestIndexDeepPathsMatchBruteForce(t *testing.T) {
	r := testRand(t)
	x, model := gate.NewIndex(), indexModel{}
	name := func() string { return fmt.Sprintf("n%d", r.IntN(40)) }
	path := func() string {
		p := name()
		for range r.IntN(4) {
			p += "/" + name()
		}
		return p
	}
	pattern := func() string {
		if r.IntN(5) == 0 {
			return path() + "/" + globSegs[r.IntN(len(globSegs))]
		}
		return path()
	}
	check := func(stage string) {
		t.Helper()
		for range 300 {
			q := pattern()
			if got, want := visitAll(x, q, false), model.visit(q, false); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: Visit(%q) = %v, want %v", stage, q, got, want)
			}
		}
		if got, want := visitAll(x, "", true), model.visit("", true); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Visit(full) = %v, want %v", stage, got, want)
		}
	}
	for round := range 3 {
		for i := range 600 {
			id := gate.LeaseID(fmt.Sprintf("L%d-%d", round, i))
			model[id] = sparse(pattern())
			x.Add(id, model[id])
		}
		check(fmt.Sprintf("round %d, after adds", round))
		for id, s := range model {
			if r.IntN(4) > 0 {
				x.Remove(id, s)
				delete(model, id)
			}
		}
		check(fmt.Sprintf("round %d, after removes", round))
	}
	for id, s := range model {
		x.Remove(id, s)
		delete(model, id)
	}
	check("empty")
	if x.Len() != 0 {
		t.Fatalf("Len() = %d after every pattern was removed, want 0", x.Len())
	}
}
