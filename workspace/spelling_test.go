package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// foldingLookup stands in for a volume that folds case, on one that does
// not: it finds p's final element in any case, as NTFS and APFS do, and
// names it as its directory holds it.
func foldingLookup(p string) (string, bool) {
	entries, err := os.ReadDir(filepath.Dir(p))
	if err != nil {
		return p, false
	}
	for _, e := range entries {
		if strings.EqualFold(e.Name(), filepath.Base(p)) {
			return filepath.Join(filepath.Dir(p), e.Name()), true
		}
	}
	return p, false
}

// TestSpelling: where names fold, the existing elements of a relative
// path are spelt as on disk and the rest as given; where case counts the
// path is as given.
func TestSpelling(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "Pkg", "Sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "Pkg", "foo_TEST.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("Sub", filepath.Join(root, "Pkg", "Link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rules     pathRules
		rel, want string
	}{
		{windowsRules, "pkg/Foo_test.go", "Pkg/foo_TEST.go"},
		{macRules, "PKG/FOO_TEST.GO", "Pkg/foo_TEST.go"},
		{windowsRules, "pkg/sub/New.go", "Pkg/Sub/New.go"},
		{windowsRules, "pkg/link/X.go", "Pkg/Link/X.go"}, // the link's own name: not followed to Sub
		{windowsRules, "pkg/new/x_TEST.go", "Pkg/new/x_TEST.go"},
		{windowsRules, ".", "."},
		{unixRules, "pkg/Foo_test.go", "pkg/Foo_test.go"},
		{macSensitiveRules, "pkg/Foo_test.go", "pkg/Foo_test.go"},
	}
	for _, tt := range tests {
		if got := tt.rules.spelling(root, tt.rel, foldingLookup); got != tt.want {
			t.Errorf("spelling(%q) = %q, want %q", tt.rel, got, tt.want)
		}
	}
}
