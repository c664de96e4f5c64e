package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/workspace"
)

// TestDiscoverWorkspaceAgreesWithGit checks that the hooks find a
// workspace without git only in layouts they are sure of, and then find
// the one workspace.Find finds with git.
func TestDiscoverWorkspaceAgreesWithGit(t *testing.T) {
	for _, name := range []string{"GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"} {
		t.Setenv(name, "") // restored when the test ends
		os.Unsetenv(name)
	}
	r := newRepo(t)
	base := mustEvalSymlinks(t, t.TempDir())
	mustMkdir(t, filepath.Join(r.root, "src", "deep"))

	r.git("worktree", "add", "-q", "-b", "wt", filepath.Join(base, "wt"))
	mustMkdir(t, filepath.Join(base, "wt", "src"))

	sub := newRepo(t)
	r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.root, "mods/sub")

	nested := filepath.Join(r.root, "build", "nested")
	mustMkdir(t, nested)
	r.exec(nil, "", "git", "init", "-q", nested)

	if err := os.Symlink(filepath.Join(r.root, "src"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}

	elsewhere := newRepo(t)
	elsewhere.git("config", "core.worktree", base)

	r.exec(nil, "", "git", "init", "-q", "--bare", filepath.Join(base, "bare.git"))

	// A .git whose HEAD git does not accept: git passes over it to the
	// checkout around it.
	broken := filepath.Join(r.root, "src", "broken")
	mustMkdir(t, filepath.Join(broken, ".git", "objects"))
	mustMkdir(t, filepath.Join(broken, ".git", "refs"))
	writeFile(t, filepath.Join(broken, ".git", "HEAD"), "garbage\n", 0o644)

	tests := []struct {
		name   string
		dir    string
		wantOK bool
	}{
		{name: "root", dir: r.root, wantOK: true},
		{name: "subdirectory", dir: filepath.Join(r.root, "src", "deep"), wantOK: true},
		{name: "linked worktree", dir: filepath.Join(base, "wt", "src"), wantOK: true},
		{name: "submodule", dir: filepath.Join(r.root, "mods", "sub"), wantOK: true},
		{name: "nested repository", dir: nested, wantOK: true},
		{name: "through a symlink", dir: filepath.Join(base, "link"), wantOK: true},
		{name: "inside the git dir", dir: filepath.Join(r.root, ".git", "refs"), wantOK: false},
		{name: "below a .git git rejects", dir: broken, wantOK: false},
		{name: "core.worktree elsewhere", dir: elsewhere.root, wantOK: false},
		{name: "bare repository", dir: filepath.Join(base, "bare.git"), wantOK: false},
		{name: "not a repository", dir: base, wantOK: false},
	}
	t.Run("discovery steered by the environment", func(t *testing.T) {
		t.Setenv("GIT_CEILING_DIRECTORIES", r.root)
		if ws, ok := hooks.DiscoverWorkspace(filepath.Join(r.root, "src")); ok {
			t.Errorf("DiscoverWorkspace with GIT_CEILING_DIRECTORIES = %+v, want it left to git", *ws)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := hooks.DiscoverWorkspace(tt.dir)
			if ok != tt.wantOK {
				t.Fatalf("DiscoverWorkspace(%q) ok = %v, want %v (%+v)", tt.dir, ok, tt.wantOK, got)
			}
			if !ok {
				return
			}
			want, err := workspace.Find(tt.dir)
			if err != nil {
				t.Fatalf("workspace.Find(%q): %v", tt.dir, err)
			}
			if got.Root != want.Root || got.GitDir != want.GitDir || got.CommonDir != want.CommonDir || got.StateDir != want.StateDir {
				t.Errorf("DiscoverWorkspace(%q) = %+v, want %+v", tt.dir, *got, *want)
			}
		})
	}
}

func mustEvalSymlinks(tb testing.TB, p string) string {
	tb.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func mustMkdir(tb testing.TB, dir string) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
}
