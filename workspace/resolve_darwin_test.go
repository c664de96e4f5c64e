package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// mustFoldingVolume skips the test unless the temp dir's volume folds
// case (APFS's default; a case-sensitive volume is covered by Linux's
// tests), and returns the temp dir, symlinks resolved.
func mustFoldingVolume(t *testing.T) string {
	t.Helper()
	dir := mustRealDir(t, t.TempDir())
	mustWrite(t, dir, "probe", "")
	if _, err := os.Lstat(filepath.Join(dir, "PROBE")); err != nil {
		t.Skipf("the volume of %s tells names apart by case", dir)
	}
	return dir
}

// TestResolveExistingSpellsAsOnDiskMac: two spellings of one file on a
// volume that folds case, or that writes é composed or decomposed, resolve
// to one path, the directory's own spelling, so they are one relative path
// and one lease. The missing rest of a path keeps the spelling given.
func TestResolveExistingSpellsAsOnDiskMac(t *testing.T) {
	root := mustFoldingVolume(t)
	mustFind(t, root) // asks the volume, as every command does
	mustWrite(t, root, "Src/Pkg/Foo.go", "package pkg\n")
	mustWrite(t, root, "Caf\u00e9/x.go", "")
	tests := []struct{ p, rel string }{
		{p: "Src/Pkg/Foo.go", rel: "Src/Pkg/Foo.go"},
		{p: "src/pkg/foo.GO", rel: "Src/Pkg/Foo.go"},
		{p: "SRC/PKG/FOO.GO", rel: "Src/Pkg/Foo.go"},
		{p: "src/pkg/New.go", rel: "Src/Pkg/New.go"},
		{p: "src/new/Bar.go", rel: "Src/new/Bar.go"},
		{p: "CAFE\u0301/x.go", rel: "Caf\u00e9/x.go"},
	}
	for _, tt := range tests {
		got := workspace.ResolveExisting(filepath.Join(root, tt.p))
		if rel, _ := workspace.Under(root, got); rel != tt.rel {
			t.Errorf("ResolveExisting(%q) = %q, relative %q, want %q", tt.p, got, rel, tt.rel)
		}
	}
	// A symlink whose target is spelt in another case leads to the
	// target's own spelling.
	if err := os.Symlink(filepath.Join(root, "SRC", "PKG"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if got, want := workspace.ResolveExisting(filepath.Join(root, "link", "foo.go")), filepath.Join(root, "Src", "Pkg", "Foo.go"); got != want {
		t.Errorf("ResolveExisting(link/foo.go) = %q, want %q", got, want)
	}
}

// TestFindRootInAnotherCaseMac: a workspace found from its directory named
// in another case has the root as on disk, and a path naming the root in
// yet another case is inside it, not an unwatched outside.
func TestFindRootInAnotherCaseMac(t *testing.T) {
	root := filepath.Join(mustFoldingVolume(t), "Repo")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	mustGit(t, root, "init", "-q")
	w := mustFind(t, filepath.Join(filepath.Dir(root), "REPO"))
	if w.Root != root {
		t.Fatalf("Find(REPO).Root = %q, want %q", w.Root, root)
	}
	other := filepath.Join(strings.ToUpper(filepath.Dir(root)), "repo", "src", "X.go")
	if rel, inside := w.Rel(other); rel != "src/X.go" || !inside {
		t.Errorf("Rel(%q) = %q, %v, want src/X.go, true", other, rel, inside)
	}
}
