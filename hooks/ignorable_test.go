package hooks_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/workspace"
)

// TestClassifyAgreesWithGit checks that the hooks' rule gives the verdict
// of workspace.Rule (which asks git) on every path, and asks git only
// where an ignore pattern may match.
func TestClassifyAgreesWithGit(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	writeFile(t, filepath.Join(home, ".config", "git", "ignore"), "*.swp\n", 0o644)

	r := newRepo(t) // .gitignore: build/
	r.write(".gitignore", "build/\n*.log\n!keep.log\n/dist\n[Tt]mp*/\n\\#odd\nnode_modules\n")
	r.write("src/.gitignore", "gen_*.go\n")
	r.write("docs/forced.log", "tracked though ignored\n")
	r.git("add", "-f", "docs/forced.log")
	r.git("commit", "-q", "-m", "forced")
	writeFile(t, filepath.Join(r.root, ".git", "info", "exclude"), "secret.txt\n", 0o644)
	ws, err := workspace.Find(r.root)
	if err != nil {
		t.Fatal(err)
	}
	free := []string{"src/main.go", "README.md", "src/deep/new.txt", "lib/a.go", "Makefile"}
	others := []string{
		"build/out.bin", "src/build/x", "app.log", "keep.log", "docs/forced.log", "dist/a.js",
		"src/dist/a.js", "distx/a.go", "tmp1/x", "Tmp/x", "#odd", "a/node_modules/b.js", "src/gen_x.go",
		"gen_x.go", "x.swp", "x.bak", "src/secret.txt", ".git/config", ".git/leasegate/coord.sock",
		".gitignore", "src/.gitignore",
	}
	t.Run("default excludes file", func(t *testing.T) {
		checkClassify(t, ws, free, others, true)
	})
	t.Run("core.excludesFile", func(t *testing.T) {
		writeFile(t, filepath.Join(home, "ignore-global"), "*.bak\n", 0o644)
		writeFile(t, filepath.Join(home, ".gitconfig"), "[Core]\n\texcludesFile = ~/ignore-global\n", 0o644)
		checkClassify(t, ws, free, others, true)
	})
	t.Run("config include", func(t *testing.T) {
		writeFile(t, filepath.Join(home, ".gitconfig"), "[include]\n\tpath = other\n", 0o644)
		checkClassify(t, ws, free, others, false)
	})
}

// checkClassify checks that the hooks' verdict on every path is
// workspace.Rule's, and that the free paths were decided without git if
// fast.
func checkClassify(t *testing.T, ws *workspace.Workspace, free, others []string, fast bool) {
	t.Helper()
	rule, err := workspace.NewRule(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rule.Close()
	for _, rel := range slices.Concat(free, others) {
		got, askedGit, err := hooks.ClassifyFast(ws, rel)
		if err != nil {
			t.Fatal(err)
		}
		if want := rule.Classify(rel); got != want {
			t.Errorf("Classify(%q) = %v, want %v", rel, got, want)
		}
		if slices.Contains(free, rel) && askedGit == fast {
			t.Errorf("Classify(%q) asked git = %v, want %v", rel, askedGit, !fast)
		}
	}
}

func TestLiteralRuns(t *testing.T) {
	tests := []struct {
		pattern string
		want    []string
	}{
		{pattern: "*.log", want: []string{".log"}},
		{pattern: "/Build/", want: []string{"build"}},
		{pattern: "a/**/b", want: []string{"a", "b"}},
		{pattern: "[Tt]mp*", want: []string{"mp"}},
		{pattern: "x[]y]z", want: []string{"x", "z"}},
		{pattern: "x[[:digit:]]y", want: []string{"x", "y"}},
		{pattern: `\#odd`, want: []string{"odd"}},
		{pattern: "trailing  ", want: []string{"trailing"}},
		{pattern: "*", want: nil},
	}
	for _, tt := range tests {
		if got := hooks.LiteralRuns(tt.pattern); !slices.Equal(got, tt.want) {
			t.Errorf("literalRuns(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
}
