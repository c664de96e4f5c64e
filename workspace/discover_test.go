package workspace_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// committedRepo is mustRepo with one commit.
func committedRepo(tb testing.TB) string {
	tb.Helper()
	dir := mustRepo(tb)
	mustWrite(tb, dir, "README.md", "readme\n")
	mustGit(tb, dir, "add", ".")
	mustGit(tb, dir, "commit", "-q", "-m", "init")
	return dir
}

// TestDiscoverAgreesWithGit checks that Find answers without git only in
// layouts it is sure of, and then with the workspace git names.
func TestDiscoverAgreesWithGit(t *testing.T) {
	for _, name := range []string{"GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"} {
		t.Setenv(name, "") // restored when the test ends
		os.Unsetenv(name)
	}
	root := committedRepo(t)
	base := mustRealDir(t, t.TempDir())
	mustWrite(t, root, "src/deep/keep", "")

	mustGit(t, root, "worktree", "add", "-q", "-b", "wt", filepath.Join(base, "wt"))
	mustWrite(t, filepath.Join(base, "wt"), "src/keep", "")

	sub := committedRepo(t)
	mustGit(t, root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mods/sub")

	nested := filepath.Join(root, "build", "nested")
	mustWrite(t, nested, "keep", "")
	mustGit(t, nested, "init", "-q")

	if err := os.Symlink(filepath.Join(root, "src"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}

	elsewhere := committedRepo(t)
	mustGit(t, elsewhere, "config", "core.worktree", base)

	mustGit(t, base, "init", "-q", "--bare", filepath.Join(base, "bare.git"))

	// A .git whose HEAD git does not accept: git passes over it to the
	// checkout around it.
	broken := filepath.Join(root, "src", "broken")
	mustWrite(t, broken, ".git/objects/keep", "")
	mustWrite(t, broken, ".git/refs/keep", "")
	mustWrite(t, broken, ".git/HEAD", "garbage\n")

	tests := []struct {
		name   string
		dir    string
		wantOK bool
	}{
		{name: "root", dir: root, wantOK: true},
		{name: "subdirectory", dir: filepath.Join(root, "src", "deep"), wantOK: true},
		{name: "linked worktree", dir: filepath.Join(base, "wt", "src"), wantOK: true},
		{name: "submodule", dir: filepath.Join(root, "mods", "sub"), wantOK: true},
		{name: "nested repository", dir: nested, wantOK: true},
		{name: "through a symlink", dir: filepath.Join(base, "link"), wantOK: true},
		{name: "inside the git dir", dir: filepath.Join(root, ".git", "refs"), wantOK: false},
		{name: "below a .git git rejects", dir: broken, wantOK: false},
		{name: "core.worktree elsewhere", dir: elsewhere, wantOK: false},
		{name: "bare repository", dir: filepath.Join(base, "bare.git"), wantOK: false},
		{name: "not a repository", dir: base, wantOK: false},
	}
	t.Run("discovery steered by the environment", func(t *testing.T) {
		t.Setenv("GIT_CEILING_DIRECTORIES", root)
		if ws, ok := workspace.Discover(filepath.Join(root, "src")); ok {
			t.Errorf("Discover with GIT_CEILING_DIRECTORIES = %+v, want it left to git", *ws)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := workspace.Discover(tt.dir)
			if ok != tt.wantOK {
				t.Fatalf("Discover(%q) ok = %v, want %v (%+v)", tt.dir, ok, tt.wantOK, got)
			}
			if !ok {
				return
			}
			want, err := workspace.FindWithGit(tt.dir)
			if err != nil {
				t.Fatalf("FindWithGit(%q): %v", tt.dir, err)
			}
			if got.Root != want.Root || got.GitDir != want.GitDir || got.CommonDir != want.CommonDir || got.StateDir != want.StateDir {
				t.Errorf("Discover(%q) = %+v, want %+v", tt.dir, *got, *want)
			}
			if found := mustFind(t, tt.dir); found.Submodule == "" && (found.Root != got.Root || found.StateDir != got.StateDir) {
				t.Errorf("Find(%q) = %+v, want %+v", tt.dir, *found, *got)
			}
		})
	}
}
