package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

func TestFind(t *testing.T) {
	repo := mustRepo(t)
	mustWrite(t, repo, "src/deep/a.go", "package a\n")
	mustGit(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(mustRealDir(t, t.TempDir()), "wt")
	mustGit(t, repo, "worktree", "add", "-q", wt)
	plain := mustRealDir(t, t.TempDir())
	gitDir := filepath.Join(repo, ".git")
	wtGitDir := filepath.Join(gitDir, "worktrees", "wt")

	tests := []struct {
		name                              string
		dir                               string
		root, gitDir, commonDir, stateDir string
	}{
		{name: "at root", dir: repo, root: repo, gitDir: gitDir, commonDir: gitDir, stateDir: filepath.Join(gitDir, "leasegate")},
		{name: "in subdir", dir: filepath.Join(repo, "src", "deep"), root: repo, gitDir: gitDir, commonDir: gitDir, stateDir: filepath.Join(gitDir, "leasegate")},
		{name: "outside git", dir: plain, root: plain, stateDir: filepath.Join(plain, ".leasegate")},
		// Each worktree is its own workspace: its state lives in its own
		// git dir, not in the common one.
		{name: "linked worktree", dir: wt, root: wt, gitDir: wtGitDir, commonDir: gitDir, stateDir: filepath.Join(wtGitDir, "leasegate")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := mustFind(t, tt.dir)
			got := [4]string{w.Root, w.GitDir, w.CommonDir, w.StateDir}
			want := [4]string{tt.root, tt.gitDir, tt.commonDir, tt.stateDir}
			if got != want {
				t.Errorf("Find(%q) = [root git common state] %q, want %q", tt.dir, got, want)
			}
		})
	}
}

// A git hook runs with GIT_DIR set (often to a relative ".git"); discovery
// must still find the checkout containing dir.
func TestFindIgnoresGitLocationEnv(t *testing.T) {
	repo := mustRepo(t)
	other := mustRepo(t)
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	w := mustFind(t, repo)
	if w.Root != repo {
		t.Errorf("Find(%q).Root = %q with GIT_DIR set elsewhere, want %q", repo, w.Root, repo)
	}
}

func TestFindSymlinkedRoot(t *testing.T) {
	repo := mustRepo(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	w := mustFind(t, link)
	if w.Root != repo {
		t.Errorf("Find(%q).Root = %q, want the resolved %q", link, w.Root, repo)
	}
	if rel, ok := w.Rel(filepath.Join(link, "src", "a.go")); !ok || rel != "src/a.go" {
		t.Errorf("Rel(through link) = %q, %v, want %q, true", rel, ok, "src/a.go")
	}
}

func TestFindLoadsConfig(t *testing.T) {
	repo := mustRepo(t)
	mustWrite(t, repo, workspace.ConfigFile, `{"exclude": ["vendor/**"]}`)
	w := mustFind(t, filepath.Join(repo))
	if len(w.Config.Exclude) != 1 || w.Config.Exclude[0] != "vendor/**" {
		t.Errorf("Find().Config.Exclude = %q, want [vendor/**]", w.Config.Exclude)
	}
	mustWrite(t, repo, workspace.ConfigFile, `{"exclude": ["vendor/"]}`)
	if _, err := workspace.Find(repo); err == nil {
		t.Errorf("Find() with an invalid %s = nil error, want one", workspace.ConfigFile)
	}
}

func TestFindMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	if _, err := workspace.Find(dir); err == nil {
		t.Errorf("Find(%q) = nil error, want one", dir)
	}
}

// A bare repository, or a checkout's .git directory, has no working tree:
// Find says so (ErrNoWorkTree), rather than passing on git's complaint;
// inside a checkout's .git (the blocker reports' directory, where an
// operator pastes a report's command) it names the checkout to run in
// (it told of `git worktree add`, as for a bare repository).
func TestFindNoWorkTree(t *testing.T) {
	repo := mustRepo(t)
	mustGit(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	bare := filepath.Join(mustRealDir(t, t.TempDir()), "bare.git")
	mustGit(t, repo, "clone", "-q", "--bare", repo, bare)
	for _, dir := range []string{bare, filepath.Join(bare, "refs")} {
		_, err := workspace.Find(dir)
		if !errors.Is(err, workspace.ErrNoWorkTree) || !strings.Contains(err.Error(), "git worktree add") {
			t.Errorf("Find(%q) = %v, want ErrNoWorkTree saying how to make a checkout", dir, err)
		}
	}
	linked := filepath.Join(mustRealDir(t, t.TempDir()), "linked")
	mustGit(t, repo, "worktree", "add", "-q", linked)
	for dir, checkout := range map[string]string{filepath.Join(repo, ".git"): repo, filepath.Join(repo, ".git", "refs"): repo,
		filepath.Join(repo, ".git", "worktrees", "linked"): linked} {
		_, err := workspace.Find(dir)
		if !errors.Is(err, workspace.ErrNoWorkTree) || !strings.Contains(err.Error(), "--workspace "+checkout+")") {
			t.Errorf("Find(%q) = %v, want ErrNoWorkTree naming the checkout %s to run in", dir, err, checkout)
		}
	}
}

func TestRel(t *testing.T) {
	root := mustRealDir(t, t.TempDir())
	ws := &workspace.Workspace{Root: filepath.Join(root, "main")}
	mustWrite(t, ws.Root, "src/a.go", "")
	outside := mustRealDir(t, t.TempDir())
	// A directory outside that links into the workspace, and a link to a
	// workspace file.
	mustSymlink(t, filepath.Join(ws.Root, "src"), filepath.Join(outside, "srclink"))
	mustSymlink(t, filepath.Join(ws.Root, "src", "a.go"), filepath.Join(outside, "filelink"))

	tests := []struct {
		name   string
		abs    string
		rel    string
		inside bool
	}{
		{name: "root", abs: ws.Root, rel: ".", inside: true},
		{name: "file", abs: ws.Root + "/src/a.go", rel: "src/a.go", inside: true},
		{name: "missing file", abs: ws.Root + "/new/dir/b.go", rel: "new/dir/b.go", inside: true},
		{name: "unclean", abs: ws.Root + "/src/./x/../a.go", rel: "src/a.go", inside: true},
		{name: "prefix sibling", abs: ws.Root + "x/a.go", inside: false},
		{name: "prefix sibling dir", abs: ws.Root + "x", inside: false},
		{name: "parent", abs: root, inside: false},
		{name: "escape by dots", abs: ws.Root + "/../main2/a.go", inside: false},
		{name: "elsewhere", abs: "/etc/passwd", inside: false},
		{name: "relative", abs: "src/a.go", inside: false},
		{name: "through a dir link from outside", abs: outside + "/srclink/b.go", rel: "src/b.go", inside: true},
		{name: "a link itself is not followed", abs: outside + "/filelink", inside: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rel, inside := ws.Rel(tt.abs)
			if rel != tt.rel || inside != tt.inside {
				t.Errorf("Rel(%q) = %q, %v, want %q, %v", tt.abs, rel, inside, tt.rel, tt.inside)
			}
		})
	}
}

func mustSymlink(tb testing.TB, target, link string) {
	tb.Helper()
	if err := os.Symlink(target, link); err != nil {
		tb.Fatal(err)
	}
}

func TestAffectsIgnore(t *testing.T) {
	repo := mustRepo(t)
	w := mustFind(t, repo)
	tests := []struct {
		abs  string
		want bool
	}{
		{abs: repo + "/.gitignore", want: true},
		{abs: repo + "/src/.gitignore", want: true},
		{abs: repo + "/.git/info/exclude", want: true},
		{abs: repo + "/.git/index", want: true},
		{abs: repo + "/src/a.go", want: false},
		{abs: repo + "/.git/config", want: false},
		{abs: "/elsewhere/.gitignore", want: false},
	}
	for _, tt := range tests {
		if got := w.AffectsIgnore(tt.abs); got != tt.want {
			t.Errorf("AffectsIgnore(%q) = %v, want %v", tt.abs, got, tt.want)
		}
	}
}

// TestAffectsIgnoreWorktree: a linked worktree's index and the shared
// info/exclude lie outside its root and still change what it ignores.
func TestAffectsIgnoreWorktree(t *testing.T) {
	repo := mustRepo(t)
	mustGit(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(mustRealDir(t, t.TempDir()), "wt")
	mustGit(t, repo, "worktree", "add", "-q", wt)
	w := mustFind(t, wt)
	tests := []struct {
		abs  string
		want bool
	}{
		{abs: w.GitDir + "/index", want: true},
		{abs: w.CommonDir + "/info/exclude", want: true},
		{abs: wt + "/src/.gitignore", want: true},
		{abs: repo + "/.gitignore", want: false}, // the main checkout's own
		{abs: w.CommonDir + "/index", want: false},
		{abs: w.GitDir + "/indexx", want: false},
		{abs: wt + "/.git", want: false},
	}
	for _, tt := range tests {
		if got := w.AffectsIgnore(tt.abs); got != tt.want {
			t.Errorf("AffectsIgnore(%q) = %v, want %v", tt.abs, got, tt.want)
		}
	}
}
