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

// TestResolveBelowIsResolveExisting: resolving a name below a resolved
// root from the root gives what resolving the whole path gives, through
// links inside and out of the root, "..", dangling links and missing names.
func TestResolveBelowIsResolveExisting(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(top, "ws")
	for _, d := range []string{"ws/src", "elsewhere/dir"} {
		if err := os.MkdirAll(filepath.Join(top, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(top, "elsewhere", "dir"), filepath.Join(ws, "out")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	for name, target := range map[string]string{"in": "src", "dangling": "nothing"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, rel := range []string{"src", "src/a.go", "in/a.go", "out/y.go", "out/../x.go", "dangling",
		"missing/deep/x.go", "src/../in/b.go", "../elsewhere/dir/z"} {
		got := workspace.ResolveBelow(ws, filepath.FromSlash(rel))
		if want := workspace.ResolveExisting(ws + string(filepath.Separator) + filepath.FromSlash(rel)); got != want {
			t.Errorf("ResolveBelow(%s, %s) = %s, want %s", ws, rel, got, want)
		}
	}
}
