package gate_test

import (
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestScopeTypeOf: paths take a file scope unless one of them is a glob.
func TestScopeTypeOf(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		want  gate.ScopeType
	}{
		{name: "no paths", paths: nil, want: gate.ScopeFile},
		{name: "one file", paths: []string{"src/a.go"}, want: gate.ScopeFile},
		{name: "files", paths: []string{"src/a.go", "README.md"}, want: gate.ScopeFile},
		{name: "a subtree glob", paths: []string{"docs/**"}, want: gate.ScopeSparse},
		{name: "a file then a segment glob", paths: []string{"src/a.go", "src/*.go"}, want: gate.ScopeSparse},
		{name: "a one-character glob", paths: []string{"a?.txt"}, want: gate.ScopeSparse},
		{name: "a bracket glob", paths: []string{"a[12].txt"}, want: gate.ScopeSparse},
	}
	for _, tt := range tests {
		if got := gate.ScopeTypeOf(tt.paths); got != tt.want {
			t.Errorf("%s: ScopeTypeOf(%q) = %s, want %s", tt.name, tt.paths, got, tt.want)
		}
	}
}
