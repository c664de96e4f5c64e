package gate_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestFoldedExpandPairs: where the table folds, a rule matches a path in
// any spelling the volume takes for the rule's, the pair is spelt as the
// rule writes it around the name matched, and a pair already asked for in
// another spelling is not added twice.
func TestFoldedExpandPairs(t *testing.T) {
	rules, err := gate.CompilePairRules(append(slices.Clone(gate.DefaultPairRules),
		"src/{name}.ts -> tests/{name}.test.ts", "{name}.mk -> {name}_test.mk"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		f    gate.Folding
		in   []string
		want []string
	}{
		{gate.ExactCase, []string{"X.GO"}, []string{"X.GO"}},
		{gate.FoldCase, []string{"X.GO"}, []string{"X.GO", "X_test.go"}},
		{gate.FoldCase, []string{"pkg/X_TEST.GO"}, []string{"pkg/X_TEST.GO", "pkg/X.go"}},
		{gate.FoldCase, []string{"a/x.go", "A/X_test.go"}, []string{"a/x.go", "A/X_test.go"}},
		{gate.ExactCase, []string{"a/x.go", "A/X_test.go"}, []string{"a/x.go", "A/X_test.go", "a/x_test.go", "A/X.go"}},
		{gate.FoldCase, []string{"SRC/Foo.TS"}, []string{"SRC/Foo.TS", "tests/Foo.test.ts"}},
		{gate.FoldCase, []string{"a.m\u212a"}, []string{"a.m\u212a", "a_test.mk"}}, // the Kelvin sign is k
		{gate.FoldCase, []string{"a.gob", "go"}, []string{"a.gob", "go"}},
		{gate.FoldNormalization, []string{"X.GO"}, []string{"X.GO"}},
		{gate.FoldNormalization, []string{"cafe\u0301.go", "caf\u00e9_test.go"}, []string{"cafe\u0301.go", "caf\u00e9_test.go"}},
		{gate.FoldNormalization, []string{"cafe\u0301.go"}, []string{"cafe\u0301.go", "caf\u00e9_test.go"}},
		{macFolding, []string{"Cafe\u0301.GO"}, []string{"Cafe\u0301.GO", "Caf\u00e9_test.go"}},
	} {
		if got := tt.f.ExpandPairs(tt.in, rules); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%v: ExpandPairs(%q) = %q, want %q", tt.f, tt.in, got, tt.want)
		}
	}
}

// TestFoldedPairTaken: on a folding volume, a writer of X.GO holds its
// test file in every spelling the file may be created or exist in.
func TestFoldedPairTaken(t *testing.T) {
	rules, err := gate.CompilePairRules(gate.DefaultPairRules)
	if err != nil {
		t.Fatal(err)
	}
	w := foldedWorld(t)
	w.grant(write("alice", gate.FoldCase.ExpandPairs([]string{"pkg/Foo.GO"}, rules)...), t0)
	for _, p := range []string{"pkg/foo_TEST.go", "PKG/Foo_test.GO"} {
		if d := w.decide(write("bob", p), t0); d.Granted || d.Reason != gate.ReasonHeldByOther || d.Holder.Owner.Name != "alice" {
			t.Errorf("bob's Decide(write %s) = %s, want %s by alice", p, d.Reason, gate.ReasonHeldByOther)
		}
	}
}
