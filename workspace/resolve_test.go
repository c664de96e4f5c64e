package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// TestResolveExisting pins each case of the longest-existing-prefix
// resolution: an existing file, a link as the final element, a link in
// the middle with a missing tail, a missing tail alone, a dangling link.
func TestResolveExisting(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"src", "real"} {
		if err := os.Mkdir(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "src", "a.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"src/link.go": filepath.Join(root, "src", "a.go"),
		"dirlink":     filepath.Join(root, "real"),
		"away":        other,
		"dangling":    filepath.Join(root, "nowhere", "x"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, in, want string
	}{
		{"existing file", "src/a.go", "src/a.go"},
		{"final link followed", "src/link.go", "src/a.go"},
		{"link in the middle, missing tail", "dirlink/new/b.go", "real/new/b.go"},
		{"missing tail only", "src/new/deep/c.go", "src/new/deep/c.go"},
		{"link out of the root", "away/d.go", other + "/d.go"},
		{"dangling link kept", "dangling", "dangling"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if !filepath.IsAbs(want) {
				want = filepath.Join(root, want)
			}
			if got := workspace.ResolveExisting(filepath.Join(root, tc.in)); got != want {
				t.Fatalf("ResolveExisting(%s) = %s, want %s", tc.in, got, want)
			}
		})
	}
	if got := workspace.ResolveExisting("/"); got != "/" {
		t.Fatalf("ResolveExisting(/) = %s, want /", got)
	}
}
