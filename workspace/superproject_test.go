package workspace_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// TestFindJoinsSuperproject: a command started in a submodule's checkout
// (a submodule of a submodule too, any directory in it) takes the
// outermost superproject's workspace, whose rule gates its files, and the
// rule status prints says it joined; the superproject itself and a clone
// merely nested in it stay workspaces of their own.
func TestFindJoinsSuperproject(t *testing.T) {
	lib := mustRepo(t)
	mustWrite(t, lib, "pkg/lib.go", "package lib\n")
	mustGit(t, lib, "add", ".")
	mustGit(t, lib, "commit", "-q", "-m", "lib")
	mid := mustRepo(t)
	mustGit(t, mid, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	mustGit(t, mid, "commit", "-q", "-m", "mid")
	super := mustRepo(t)
	mustGit(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", mid, "mid")
	mustGit(t, super, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init", "--recursive")
	mustGit(t, super, "clone", "-q", lib, "vendored")
	top := mustFind(t, super)
	subs, err := top.Submodules()
	if want := []string{filepath.Join(super, "mid"), filepath.Join(super, "mid", "lib")}; err != nil || !slices.Equal(subs, want) {
		t.Errorf("Submodules() = %q, %v; want %q", subs, err, want)
	}

	tests := []struct {
		name, dir, root, submodule string
	}{
		{name: "submodule", dir: filepath.Join(super, "mid"), root: super, submodule: filepath.Join(super, "mid")},
		{name: "submodule of a submodule", dir: filepath.Join(super, "mid", "lib", "pkg"), root: super, submodule: filepath.Join(super, "mid", "lib")},
		{name: "superproject", dir: super, root: super},
		{name: "nested clone", dir: filepath.Join(super, "vendored"), root: filepath.Join(super, "vendored")},
	}
	for _, tt := range tests {
		w := mustFind(t, tt.dir)
		if w.Root != tt.root || w.Submodule != tt.submodule {
			t.Errorf("%s: Find(%q) = root %q, submodule %q; want %q, %q", tt.name, tt.dir, w.Root, w.Submodule, tt.root, tt.submodule)
		}
		if tt.root == super && (w.StateDir != top.StateDir || w.GitDir != top.GitDir) {
			t.Errorf("%s: Find(%q) state %q, git dir %q; want the superproject's %q, %q", tt.name, tt.dir, w.StateDir, w.GitDir, top.StateDir, top.GitDir)
		}
		text := describe(t, w)
		if said := strings.Contains(text, "joined: started in the submodule "+tt.submodule+","); said != (tt.submodule != "") {
			t.Errorf("%s: the rule says joined %v, want %v:\n%s", tt.name, said, tt.submodule != "", text)
		}
	}
}

// TestFindJoinsCheckoutAroundWorktree: a command started in a linked
// worktree made inside a checkout, which that checkout gates, takes the
// checkout's workspace and says so; one made where the checkout ignores it
// (.worktrees/ in .gitignore), or outside the checkout, is a workspace of
// its own.
func TestFindJoinsCheckoutAroundWorktree(t *testing.T) {
	main := mustRepo(t)
	mustWrite(t, main, ".gitignore", ".worktrees/\n")
	mustWrite(t, main, "a.txt", "a\n")
	mustGit(t, main, "add", ".")
	mustGit(t, main, "commit", "-q", "-m", "main")
	outside := filepath.Join(mustRealDir(t, t.TempDir()), "outside")
	for _, wt := range []string{"wt", ".worktrees/ignored", outside} {
		mustGit(t, main, "worktree", "add", "-q", "--detach", wt)
	}
	top := mustFind(t, main)
	tests := []struct {
		name, dir, root, nested string
	}{
		{name: "inside, gated", dir: filepath.Join(main, "wt"), root: main, nested: filepath.Join(main, "wt")},
		{name: "inside, ignored", dir: filepath.Join(main, ".worktrees", "ignored"), root: filepath.Join(main, ".worktrees", "ignored")},
		{name: "outside", dir: outside, root: outside},
	}
	for _, tt := range tests {
		w := mustFind(t, tt.dir)
		if w.Root != tt.root || w.Submodule != tt.nested {
			t.Errorf("%s: Find(%q) = root %q, nested %q; want %q, %q", tt.name, tt.dir, w.Root, w.Submodule, tt.root, tt.nested)
		}
		if tt.nested != "" && (w.StateDir != top.StateDir || w.Nested != workspace.NestedWorktree) {
			t.Errorf("%s: Find(%q) state %q, nested as %q; want the checkout's %q, a linked worktree", tt.name, tt.dir, w.StateDir, w.Nested, top.StateDir)
		}
		text := describe(t, w)
		if said := strings.Contains(text, "joined: started in the linked worktree "+tt.nested+","); said != (tt.nested != "") {
			t.Errorf("%s: the rule says joined %v, want %v:\n%s", tt.name, said, tt.nested != "", text)
		}
	}
}

// describe is the text of w's rule as status prints it.
func describe(t *testing.T, w *workspace.Workspace) string {
	t.Helper()
	rule, err := workspace.NewRule(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rule.Close()
	return rule.Describe()
}
