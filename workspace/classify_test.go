package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// classifyFixture is a checkout with a linked worktree, a directory
// outside both, and symlinks that lead out of the workspace, into it and
// into its state directory.
type classifyFixture struct {
	repo, wt, other string
	main, linked    *workspace.Rule
}

func mustClassifyFixture(t *testing.T) classifyFixture {
	t.Helper()
	f := classifyFixture{repo: mustRepo(t), other: mustRealDir(t, t.TempDir())}
	mustWrite(t, f.repo, ".gitignore", "build/\n")
	mustWrite(t, f.repo, "src/a.go", "package a\n")
	mustWrite(t, f.repo, workspace.ConfigFile, `{"exclude": ["tmp/**"]}`)
	mustWrite(t, f.other, "x.go", "")
	mustGit(t, f.repo, "add", ".")
	mustGit(t, f.repo, "commit", "-q", "-m", "init")
	f.wt = filepath.Join(mustRealDir(t, t.TempDir()), "wt")
	mustGit(t, f.repo, "worktree", "add", "-q", f.wt)
	ws := mustFind(t, f.repo)
	if err := ws.EnsureStateDir(); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		f.repo + "/esc":         f.other,
		f.repo + "/src/link.go": f.repo + "/src/a.go",
		f.repo + "/src/out.go":  f.other + "/x.go",
		f.repo + "/src/gone.go": f.other + "/none.go",
		f.repo + "/statelink":   ws.StateDir,
		f.other + "/in":         f.repo + "/src",
		f.other + "/state":      ws.StateDir,
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	f.main, f.linked = mustRule(t, ws), mustRule(t, mustFind(t, f.wt))
	return f
}

// TestClassifyPath pins each class of the one path classifier, fed as the
// hooks feed it (ResolvePath of a tool's path from the root) and as the
// seccomp gate reports paths (resolved already).
func TestClassifyPath(t *testing.T) {
	f := mustClassifyFixture(t)
	deep := "src/" + strings.Repeat("d23456789/", 24) + "abc.go" // 250 bytes
	tests := []struct {
		name   string
		in     string // {repo}, {wt} and {other} are replaced; relative to {repo} (or {wt})
		reach  workspace.Reach
		linked bool // classify by the linked worktree's rule, from its root
		want   workspace.Class
		rel    string
	}{
		{name: "gated file", in: "src/a.go", want: workspace.Gated, rel: "src/a.go"},
		{name: "absolute gated file", in: "{repo}/src/a.go", want: workspace.Gated, rel: "src/a.go"},
		{name: "new file", in: "src/new/b.go", want: workspace.Gated, rel: "src/new/b.go"},
		{name: "deep 250-byte path", in: deep, want: workspace.Gated, rel: deep},
		{name: "dot-dot inside", in: "src/../src/a.go", want: workspace.Gated, rel: "src/a.go"},
		{name: "trailing slash", in: "src/", reach: workspace.ReachTree, want: workspace.Gated, rel: "src"},
		{name: "final link is the file it names", in: "src/link.go", want: workspace.Gated, rel: "src/a.go"},
		{name: "link from outside into the tree", in: "{other}/in/b.go", want: workspace.Gated, rel: "src/b.go"},
		{name: "dot-dot after a link in", in: "{other}/in/../c.go", want: workspace.Gated, rel: "c.go"},
		{name: "root", in: "{repo}", want: workspace.Root, rel: "."},
		{name: "root with trailing slash", in: "{repo}/", want: workspace.Root, rel: "."},
		{name: "root as a tree holds the state dir", in: ".", reach: workspace.ReachTree, want: workspace.StateDir, rel: "."},
		{name: "root as a new directory (mkdir -p)", in: "{repo}", reach: workspace.ReachDir, want: workspace.Root, rel: "."},
		{name: "outside", in: "{other}/x.go", want: workspace.Outside},
		{name: "sibling sharing the prefix", in: "{repo}x/a.go", want: workspace.Outside},
		{name: "dot-dot out", in: "../x.go", want: workspace.Outside},
		{name: "symlink escape", in: "esc/x.go", want: workspace.Outside},
		{name: "dot-dot after a link out", in: "esc/../src/a.go", want: workspace.Outside},
		{name: "final link out", in: "src/out.go", want: workspace.Outside},
		{name: "dangling link is the link", in: "src/gone.go", want: workspace.Gated, rel: "src/gone.go"},
		{name: "state dir", in: ".git/leasegate/ledger.db", want: workspace.StateDir, rel: ".git/leasegate/ledger.db"},
		{name: "state dir through a link inside", in: "statelink/x", want: workspace.StateDir, rel: ".git/leasegate/x"},
		{name: "state dir through a link outside", in: "{other}/state/x", want: workspace.StateDir, rel: ".git/leasegate/x"},
		{name: "git dir holding the state dir", in: ".git", reach: workspace.ReachTree, want: workspace.StateDir, rel: ".git"},
		{name: "git dir as a new directory holds the state dir", in: ".git", reach: workspace.ReachDir, want: workspace.StateDir, rel: ".git"},
		{name: "git dir", in: ".git/config", want: workspace.GitDir, rel: ".git/config"},
		{name: "sibling of the state dir", in: ".git/leasegatex", want: workspace.GitDir, rel: ".git/leasegatex"},
		{name: "nested repository's git dir", in: "vendor/lib/.git/index.lock", want: workspace.GitDir, rel: "vendor/lib/.git/index.lock"},
		{name: "nested repository's git dir as a new directory", in: "vendor/lib/.git", reach: workspace.ReachDir, want: workspace.GitDir, rel: "vendor/lib/.git"},
		{name: "nested repository's work file", in: "vendor/lib/a.go", want: workspace.Gated, rel: "vendor/lib/a.go"},
		{name: "nested repository as a tree", in: "vendor/lib", reach: workspace.ReachTree, want: workspace.Gated, rel: "vendor/lib"},
		{name: "name ending in .git", in: "vendor/lib.git/a.go", want: workspace.Gated, rel: "vendor/lib.git/a.go"},
		{name: "operator file", in: workspace.ConfigFile, want: workspace.Operator, rel: workspace.ConfigFile},
		{name: "git-ignored", in: "build/x.o", want: workspace.Ignored, rel: "build/x.o"},
		{name: "git-ignored directory", in: "build", reach: workspace.ReachTree, want: workspace.Ignored, rel: "build"},
		{name: "git-ignored new directory", in: "build/sub", reach: workspace.ReachDir, want: workspace.Ignored, rel: "build/sub"},
		{name: "parent of the root holds the state dir", in: "{repo}/..", reach: workspace.ReachTree, want: workspace.StateDir},
		{name: "parent of the root as a new directory", in: "{repo}/..", reach: workspace.ReachDir, want: workspace.Outside},
		{name: "excluded by a glob", in: "tmp/x", want: workspace.Excluded, rel: "tmp/x"},
		{name: "worktree file", in: "src/a.go", linked: true, want: workspace.Gated, rel: "src/a.go"},
		{name: "worktree root", in: "{wt}", linked: true, want: workspace.Root, rel: "."},
		{name: "worktree state dir outside its root", in: "{repo}/.git/worktrees/wt/leasegate/x", linked: true, want: workspace.StateDir},
		{name: "main git dir holds the worktree's state", in: "{repo}/.git", reach: workspace.ReachTree, linked: true, want: workspace.StateDir},
		{name: "main git dir file", in: "{repo}/.git/config", linked: true, want: workspace.Outside},
		{name: "worktree .git file", in: ".git", linked: true, want: workspace.GitDir, rel: ".git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rule, cwd := f.main, f.repo
			if tt.linked {
				rule, cwd = f.linked, f.wt
			}
			in := strings.NewReplacer("{repo}", f.repo, "{wt}", f.wt, "{other}", f.other).Replace(tt.in)
			abs := workspace.ResolvePath(cwd, in)
			got := rule.ClassifyPath(abs, tt.reach)
			if got.Class != tt.want || got.Rel != tt.rel || got.Why == "" {
				t.Fatalf("ClassifyPath(%q (%s), %v) = %+v, want %v %q", in, abs, tt.reach, got, tt.want, tt.rel)
			}
			if again := rule.ClassifyPath(abs, tt.reach); again != got {
				t.Errorf("ClassifyPath(%q) again = %+v, first %+v", abs, again, got)
			}
		})
	}
}

// TestLocate checks that the lexical step settles every class it can
// without the rule, as ClassifyPath does, and leaves the rest Gated.
func TestLocate(t *testing.T) {
	f := mustClassifyFixture(t)
	ws := mustFind(t, f.repo)
	for _, rel := range []string{".", "src/a.go", ".git/config", ".git/leasegate/x", workspace.ConfigFile, "build/x.o", "tmp/x", "../out"} {
		for _, reach := range []workspace.Reach{workspace.ReachFile, workspace.ReachDir, workspace.ReachTree} {
			abs := filepath.Join(f.repo, rel)
			full, loc := f.main.ClassifyPath(abs, reach), ws.Locate(abs, reach)
			want := full
			switch full.Class {
			case workspace.Ignored, workspace.Excluded:
				want.Class, want.Why = workspace.Gated, loc.Why
			case workspace.Gated:
				want.Why = loc.Why
			}
			if loc != want {
				t.Errorf("Locate(%q, %v) = %+v, ClassifyPath says %+v", abs, reach, loc, full)
			}
		}
	}
}

// TestLocatePattern checks that a path or glob is refused exactly when
// everything it may match is a path no worker may change.
func TestLocatePattern(t *testing.T) {
	f := mustClassifyFixture(t)
	ws := mustFind(t, f.repo)
	tests := []struct {
		rel     string
		want    workspace.Class
		refused bool
	}{
		{rel: "src/a.go", want: workspace.Gated},
		{rel: "src/**", want: workspace.Gated},
		{rel: workspace.ConfigFile, want: workspace.Operator, refused: true},
		{rel: "*.json", want: workspace.Root},
		{rel: "leasegate.js?n", want: workspace.Root},
		{rel: ".git/leasegate/ledger.db", want: workspace.StateDir, refused: true},
		{rel: ".git/leasegate/**", want: workspace.StateDir, refused: true},
		{rel: ".git/leasegate/", want: workspace.StateDir, refused: true},
		{rel: ".git/leasegate/sub/*.db", want: workspace.StateDir, refused: true},
		{rel: ".git/**", want: workspace.GitDir},
		{rel: ".git/leasegate*", want: workspace.GitDir},
		{rel: ".git/config", want: workspace.GitDir},
	}
	for _, tt := range tests {
		v := ws.LocatePattern(tt.rel)
		if v.Class != tt.want || v.Refused() != tt.refused || v.Why == "" {
			t.Errorf("LocatePattern(%q) = %+v (refused %v), want %v (refused %v)", tt.rel, v, v.Refused(), tt.want, tt.refused)
		}
	}
}
