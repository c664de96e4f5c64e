package workspace_test

import (
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// TestResolveExistingSpellsAsOnDisk: two spellings of one file on a
// case-insensitive volume resolve to one path, the directory's own
// spelling, so they are one relative path and one lease. The missing
// rest of a path keeps the spelling given.
func TestResolveExistingSpellsAsOnDisk(t *testing.T) {
	root := mustRealDir(t, t.TempDir())
	mustWrite(t, root, `Src\Pkg\Foo.go`, "package pkg\n")
	tests := []struct{ p, rel string }{
		{p: `Src\Pkg\Foo.go`, rel: "Src/Pkg/Foo.go"},
		{p: `src\pkg\foo.GO`, rel: "Src/Pkg/Foo.go"},
		{p: `SRC/PKG/FOO.GO`, rel: "Src/Pkg/Foo.go"},
		{p: `src\pkg\New.go`, rel: "Src/Pkg/New.go"},
		{p: `src\new\Bar.go`, rel: "Src/new/Bar.go"},
	}
	for _, tt := range tests {
		got := workspace.ResolveExisting(filepath.Join(root, tt.p))
		if rel, _ := workspace.Under(root, got); rel != tt.rel {
			t.Errorf("ResolveExisting(%q) = %q, relative %q, want %q", tt.p, got, rel, tt.rel)
		}
	}
}
