package gate_test

import (
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// TestScopeCovers pins the one answer to "does this lease cover this
// path" that the gate, the coordinator, the sidecar and the git guard use.
func TestScopeCovers(t *testing.T) {
	full := gate.Scope{Type: gate.ScopeFull}
	file := gate.Scope{Type: gate.ScopeFile, Paths: []string{"src/a.go"}}
	sparse := gate.Scope{Type: gate.ScopeSparse, Paths: []string{"docs/**", "src/*.go", "a?.txt"}}
	tests := []struct {
		name                     string
		scope                    gate.Scope
		path                     string
		covers, overlaps, isTree bool // Covers, Overlaps, CoversTree
	}{
		{name: "full covers a file", scope: full, path: "any/where.go", covers: true, overlaps: true, isTree: true},
		{name: "a file named with glob characters", scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{"lib/**"}}, path: "lib/a[1].txt", covers: true, overlaps: true, isTree: true},
		{name: "full covers a glob", scope: full, path: "src/**", covers: true, overlaps: true, isTree: true},
		{name: "file scope, its file", scope: file, path: "src/a.go", covers: true, overlaps: true},
		{name: "file scope, another file", scope: file, path: "src/b.go"},
		{name: "file scope, sibling sharing the prefix", scope: file, path: "src/a.go2"},
		{name: "file scope, a glob naming its file", scope: file, path: "src/*.go", covers: true, overlaps: true},
		{name: "file scope, the directory's tree", scope: file, path: "src", overlaps: false},
		{name: "subtree glob, a deep file", scope: sparse, path: "docs/a/b.md", covers: true, overlaps: true, isTree: true},
		{name: "subtree glob, its directory", scope: sparse, path: "docs", covers: true, overlaps: true, isTree: true},
		{name: "subtree glob, a sibling directory", scope: sparse, path: "docsx/a.md"},
		{name: "segment glob, a file", scope: sparse, path: "src/b.go", covers: true, overlaps: true},
		{name: "segment glob, not a deeper file", scope: sparse, path: "src/sub/b.go"},
		{name: "segment glob, a directory is not its tree", scope: sparse, path: "src", overlaps: false},
		{name: "one-character glob", scope: sparse, path: "ab.txt", covers: true, overlaps: true},
		{name: "glob inside a subtree glob", scope: sparse, path: "docs/*.md", covers: true, overlaps: true, isTree: true},
		{name: "disjoint glob", scope: sparse, path: "tests/**"},
		{name: "empty sparse scope", scope: gate.Scope{Type: gate.ScopeSparse}, path: "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.scope.Covers(tt.path); got != tt.covers {
				t.Errorf("%v.Covers(%q) = %v, want %v", tt.scope.Paths, tt.path, got, tt.covers)
			}
			if got := tt.scope.Overlaps(tt.path); got != tt.overlaps {
				t.Errorf("%v.Overlaps(%q) = %v, want %v", tt.scope.Paths, tt.path, got, tt.overlaps)
			}
			if got := tt.scope.CoversTree(tt.path); got != tt.isTree {
				t.Errorf("%v.CoversTree(%q) = %v, want %v", tt.scope.Paths, tt.path, got, tt.isTree)
			}
		})
	}
}
