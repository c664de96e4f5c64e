package workspace_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// mustClassifyRepo is a repository exercising every rule: ignored
// directories and files, a negation, a force-added file inside an ignored
// directory, include and exclude globs.
func mustClassifyRepo(t *testing.T) *workspace.Rule {
	t.Helper()
	repo := mustRepo(t)
	mustWrite(t, repo, ".gitignore", "node_modules/\nbuild/\n*.log\n!keep.log\ndist/\nout/\ngen/\n")
	mustWrite(t, repo, "README.md", "hi\n")
	mustWrite(t, repo, "build/x.o", "")
	mustWrite(t, repo, "build/sub/z.o", "")
	mustWrite(t, repo, "forced.log", "")
	mustWrite(t, repo, workspace.ConfigFile, `{"include": ["dist/*.js"], "exclude": ["vendor/**", "gen/**", "*.lock"]}`)
	mustGit(t, repo, "add", ".gitignore", "README.md", workspace.ConfigFile)
	mustGit(t, repo, "add", "-f", "build/x.o", "build/sub/z.o", "forced.log")
	return mustRule(t, mustFind(t, repo))
}

func TestClassify(t *testing.T) {
	r := mustClassifyRepo(t)
	tests := []struct {
		name string
		rel  string
		want workspace.Class
		why  string // a substring of the reason
	}{
		{name: "untracked new file", rel: "src/a.go", want: workspace.Gated, why: "not ignored"},
		{name: "tracked file", rel: "README.md", want: workspace.Gated},
		{name: "root", rel: ".", want: workspace.Root, why: "root itself"},
		{name: "git index", rel: ".git/index", want: workspace.GitDir},
		{name: "git dir itself", rel: ".git", want: workspace.GitDir},
		{name: "git object", rel: ".git/objects/ab/cdef", want: workspace.GitDir},
		{name: "state dir", rel: ".git/leasegate", want: workspace.StateDir},
		{name: "in state dir", rel: ".git/leasegate/x", want: workspace.StateDir},
		{name: "not the state dir, a sibling", rel: ".git/leasegatex", want: workspace.GitDir},
		{name: "under ignored dir", rel: "node_modules/a/b.js", want: workspace.Ignored, why: ".gitignore:1: node_modules/"},
		{name: "ignored pattern", rel: "a.log", want: workspace.Ignored, why: ".gitignore:3: *.log"},
		{name: "ignored pattern deep", rel: "src/logs/b.log", want: workspace.Ignored},
		{name: "negated pattern", rel: "keep.log", want: workspace.Gated, why: "re-included by .gitignore:4: !keep.log"},
		{name: "tracked in ignored dir", rel: "build/x.o", want: workspace.Gated, why: "tracked, though ignored by .gitignore:2: build/"},
		{name: "tracked deep in ignored dir", rel: "build/sub/z.o", want: workspace.Gated, why: "tracked"},
		{name: "tracked ignored file", rel: "forced.log", want: workspace.Gated, why: "tracked"},
		{name: "untracked in ignored dir", rel: "build/y.o", want: workspace.Ignored},
		{name: "include overrides ignore", rel: "dist/app.js", want: workspace.Gated, why: `include "dist/*.js"`},
		// dist/ holds included paths, so git is asked about this file
		// itself: check-ignore knows a file under an ignored directory.
		{name: "not included in ignored dir", rel: "dist/app.js.map", want: workspace.Ignored, why: ".gitignore:5: dist/"},
		{name: "leasegate.json is the operator's", rel: "leasegate.json", want: workspace.Operator, why: "operator file"},
		{name: "excluded", rel: "vendor/lib/x.go", want: workspace.Excluded, why: `"vendor/**"`},
		{name: "excluded by basename glob", rel: "go.lock", want: workspace.Excluded},
		{name: "exclude wins over ignore", rel: "gen/x.go", want: workspace.Excluded},
		{name: "a file named as a glob is no glob", rel: "*", want: workspace.Gated}, // "*" would match "vendor"
		{name: "a directory named as a class is no class", rel: "[v]endor/x.go", want: workspace.Gated},
		{name: "escaping", rel: "../x", want: workspace.Outside},
		{name: "empty", rel: "", want: workspace.Outside},
		{name: "absolute", rel: "/etc/passwd", want: workspace.Outside},
		{name: "unclean", rel: "src//a.go", want: workspace.Outside},
		{name: "trailing slash", rel: "src/", want: workspace.Outside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := r.Explain(tt.rel)
			if got != tt.want || !strings.Contains(why, tt.why) {
				t.Errorf("Explain(%q) = %v, %q, want %v, %q", tt.rel, got, why, tt.want, tt.why)
			}
			if c := r.Classify(tt.rel); c != got {
				t.Errorf("Classify(%q) = %v, Explain says %v", tt.rel, c, got)
			}
		})
	}
}

func TestClassifyTree(t *testing.T) {
	r := mustClassifyRepo(t)
	tests := []struct {
		rel  string
		want workspace.Class
	}{
		{rel: "src", want: workspace.Gated},
		{rel: "node_modules", want: workspace.Ignored}, // does not exist: still a directory to git
		{rel: "node_modules/a", want: workspace.Ignored},
		{rel: "out", want: workspace.Ignored},
		{rel: "build", want: workspace.Gated}, // holds the tracked build/x.o
		{rel: "build/sub", want: workspace.Gated},
		{rel: "build/other", want: workspace.Ignored},
		{rel: "dist", want: workspace.Gated}, // an include glob matches beneath it
		{rel: "vendor", want: workspace.Excluded},
		{rel: "vendor/lib", want: workspace.Excluded},
		{rel: "gen", want: workspace.Excluded},
		{rel: ".git/objects", want: workspace.GitDir},
		{rel: ".git/leasegate", want: workspace.StateDir},
		{rel: ".git", want: workspace.StateDir}, // holds the state dir
		{rel: ".", want: workspace.StateDir},
		{rel: "../x", want: workspace.Outside},
	}
	for _, tt := range tests {
		got, why := r.ExplainTree(tt.rel)
		if got != tt.want {
			t.Errorf("ExplainTree(%q) = %v, %q, want %v", tt.rel, got, why, tt.want)
		}
		if c := r.ClassifyTree(tt.rel); c != got {
			t.Errorf("ClassifyTree(%q) = %v, ExplainTree says %v", tt.rel, c, got)
		}
	}
}

func TestClassifyOutsideGit(t *testing.T) {
	root := mustRealDir(t, t.TempDir())
	mustWrite(t, root, ".gitignore", "*.log\n")
	r := mustRule(t, mustFind(t, root))
	tests := []struct {
		rel  string
		want workspace.Class
	}{
		{rel: "a.log", want: workspace.Gated}, // no git, no ignore rules
		{rel: ".leasegate/ledger.db", want: workspace.StateDir},
		{rel: ".git/x", want: workspace.Gated},
	}
	for _, tt := range tests {
		if got := r.Classify(tt.rel); got != tt.want {
			t.Errorf("Classify(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
	if got := r.ClassifyTree("."); got != workspace.StateDir {
		t.Errorf("ClassifyTree(\".\") = %v, want %v", got, workspace.StateDir)
	}
}

func TestClassifyWorktree(t *testing.T) {
	repo := mustRepo(t)
	mustGit(t, repo, "commit", "-q", "--allow-empty", "-m", "init")
	wt := filepath.Join(mustRealDir(t, t.TempDir()), "wt")
	mustGit(t, repo, "worktree", "add", "-q", wt)
	mustWrite(t, repo, ".git/info/exclude", "*.tmp\n")
	w := mustFind(t, wt)
	r := mustRule(t, w)
	tests := []struct {
		rel  string
		want workspace.Class
	}{
		{rel: ".git", want: workspace.GitDir}, // a file in a worktree
		{rel: "a.tmp", want: workspace.Ignored},
		{rel: "a.go", want: workspace.Gated},
	}
	for _, tt := range tests {
		if got := r.Classify(tt.rel); got != tt.want {
			t.Errorf("Classify(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
	// The worktree's state dir lies outside its root.
	inState := filepath.Join(w.StateDir, "ledger.db")
	if _, inside := w.Rel(inState); inside {
		t.Errorf("Rel(%q) inside = true, want false", inState)
	}
	if v := r.ClassifyPath(inState, workspace.ReachFile); v.Class != workspace.StateDir {
		t.Errorf("ClassifyPath(%q) = %+v, want %v", inState, v, workspace.StateDir)
	}
	if v := r.ClassifyPath(filepath.Join(wt, "a.go"), workspace.ReachFile); v.Class != workspace.Gated {
		t.Errorf("ClassifyPath(a workspace file) = %+v, want %v", v, workspace.Gated)
	}
}

func TestGateGitIgnored(t *testing.T) {
	repo := mustRepo(t)
	mustWrite(t, repo, ".gitignore", "*.log\n")
	mustWrite(t, repo, workspace.ConfigFile, `{"gate_git_ignored": true}`)
	r := mustRule(t, mustFind(t, repo))
	if got := r.Classify("a.log"); got != workspace.Gated {
		t.Errorf("Classify(%q) with gate_git_ignored = %v, want %v", "a.log", got, workspace.Gated)
	}
	if got := r.Classify(".git/index"); got != workspace.GitDir {
		t.Errorf("Classify(%q) with gate_git_ignored = %v, want %v", ".git/index", got, workspace.GitDir)
	}
}

// A verdict is cached until Invalidate, which also restarts git so that it
// rereads the ignore files and the index.
func TestInvalidate(t *testing.T) {
	repo := mustRepo(t)
	r := mustRule(t, mustFind(t, repo))
	if got := r.Classify("x.tmp"); got != workspace.Gated {
		t.Fatalf("Classify(%q) = %v, want %v", "x.tmp", got, workspace.Gated)
	}
	mustWrite(t, repo, ".gitignore", "*.tmp\n")
	if got := r.Classify("x.tmp"); got != workspace.Gated {
		t.Errorf("Classify(%q) before Invalidate = %v, want the cached %v", "x.tmp", got, workspace.Gated)
	}
	if got := r.Classify("y.tmp"); got != workspace.Gated {
		t.Errorf("Classify(%q) before Invalidate = %v, want %v: the running git has read .gitignore already", "y.tmp", got, workspace.Gated)
	}
	r.Invalidate()
	for _, rel := range []string{"x.tmp", "y.tmp"} {
		if got := r.Classify(rel); got != workspace.Ignored {
			t.Errorf("Classify(%q) after Invalidate = %v, want %v", rel, got, workspace.Ignored)
		}
	}
	// Force-adding an ignored file makes it tracked, hence gated.
	mustWrite(t, repo, "x.tmp", "")
	mustGit(t, repo, "add", "-f", "x.tmp")
	r.Invalidate()
	if got := r.Classify("x.tmp"); got != workspace.Gated {
		t.Errorf("Classify(%q) after git add -f = %v, want %v", "x.tmp", got, workspace.Gated)
	}
}

func TestClassifyConcurrent(t *testing.T) {
	r := mustClassifyRepo(t)
	rels := []string{"a.log", "src/a.go", "node_modules/x/y.js", "build/y.o", "keep.log", ".git/index"}
	want := make([]workspace.Class, len(rels))
	for i, rel := range rels {
		want[i] = r.Classify(rel)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for i := 0; i < 200; i++ {
				if g == 0 && i%50 == 0 {
					r.Invalidate()
				}
				k := (g + i) % len(rels)
				if got := r.Classify(rels[k]); got != want[k] {
					t.Errorf("Classify(%q) = %v concurrently, want %v", rels[k], got, want[k])
				}
			}
		})
	}
	wg.Wait()
}

func TestDescribe(t *testing.T) {
	r := mustClassifyRepo(t)
	d := r.Describe()
	for _, s := range []string{"git checkout", filepath.Join(".git", "leasegate"), `"dist/*.js"`, `"vendor/**"`, "{name}_test.go", "paths git ignores"} {
		if !strings.Contains(d, s) {
			t.Errorf("Describe() = %q, want it to mention %q", d, s)
		}
	}
}

func TestNewRuleRejectsInvalidConfig(t *testing.T) {
	w := &workspace.Workspace{Root: t.TempDir(), Config: workspace.Config{Exclude: []string{"a/"}}}
	if _, err := workspace.NewRule(w, nil); err == nil {
		t.Errorf("NewRule(exclude %q) = nil error, want one", "a/")
	}
}

func TestClassString(t *testing.T) {
	tests := []struct {
		c    workspace.Class
		want string
	}{
		{workspace.Gated, "gated"}, {workspace.Outside, "outside"}, {workspace.GitDir, "git-dir"},
		{workspace.StateDir, "state-dir"}, {workspace.Ignored, "ignored"}, {workspace.Excluded, "excluded"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("Class(%d).String() = %q, want %q", tt.c, got, tt.want)
		}
		var back workspace.Class
		if err := back.UnmarshalText([]byte(tt.want)); err != nil || back != tt.c {
			t.Errorf("UnmarshalText(%q) = %v, %v, want %v", tt.want, back, err, tt.c)
		}
	}
	var c workspace.Class
	if err := c.UnmarshalText([]byte("gatd")); err == nil {
		t.Errorf("UnmarshalText(%q) = nil error, want one", "gatd")
	}
}

// TestClassifyFoldsGlobs: on a volume that folds case (forced here), the
// include and exclude globs of leasegate.json match a path spelt in
// another case, as git's ignore rules do there (core.ignorecase): an
// excluded vendor/ spelt VENDOR/ stays excluded, and an included
// dist/*.js spelt Dist/App.JS stays gated though git ignores Dist/.
// Where names keep their case the globs match the spelling written.
func TestClassifyFoldsGlobs(t *testing.T) {
	repo := mustRepo(t)
	mustGit(t, repo, "config", "core.ignorecase", "true")
	mustWrite(t, repo, ".gitignore", "dist/\n")
	mustWrite(t, repo, workspace.ConfigFile, `{"include": ["dist/*.js"], "exclude": ["vendor/**"]}`)
	tests := []struct {
		rel         string
		tree        bool
		exact, fold workspace.Class
	}{
		{rel: "VENDOR/lib/x.go", exact: workspace.Gated, fold: workspace.Excluded},
		{rel: "Vendor", tree: true, exact: workspace.Gated, fold: workspace.Excluded},
		{rel: "Dist/App.JS", exact: workspace.Ignored, fold: workspace.Gated},
		{rel: "DIST", tree: true, exact: workspace.Ignored, fold: workspace.Gated},
		{rel: "vendor/lib/x.go", exact: workspace.Excluded, fold: workspace.Excluded},
	}
	for _, f := range []gate.Folding{gate.ExactCase, gate.FoldCase} {
		r := mustRule(t, mustFind(t, repo))
		r.SetFolding(f)
		for _, tt := range tests {
			want, got := tt.exact, r.Classify(tt.rel)
			if f == gate.FoldCase {
				want = tt.fold
			}
			if tt.tree {
				got = r.ClassifyTree(tt.rel)
			}
			if got != want {
				t.Errorf("%v: classify %q (tree %v) = %v, want %v", f, tt.rel, tt.tree, got, want)
			}
		}
	}
}
