package workspace_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// TestSuperproject: a submodule's checkout names its superproject (the
// outermost, for a submodule of a submodule), whose rule gates its files
// too, and the rule status prints says to start the tree's workers there;
// the superproject itself and a clone merely nested in it name none.
func TestSuperproject(t *testing.T) {
	lib := mustRepo(t)
	mustWrite(t, lib, "lib.go", "package lib\n")
	mustGit(t, lib, "add", ".")
	mustGit(t, lib, "commit", "-q", "-m", "lib")
	mid := mustRepo(t)
	mustGit(t, mid, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	mustGit(t, mid, "commit", "-q", "-m", "mid")
	super := mustRepo(t)
	mustGit(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", mid, "mid")
	mustGit(t, super, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init", "--recursive")
	mustGit(t, super, "clone", "-q", lib, "vendored")

	tests := []struct {
		name, dir, want string
	}{
		{name: "submodule", dir: filepath.Join(super, "mid"), want: super},
		{name: "submodule of a submodule", dir: filepath.Join(super, "mid", "lib"), want: super},
		{name: "superproject", dir: super},
		{name: "nested clone", dir: filepath.Join(super, "vendored")},
	}
	for _, tt := range tests {
		w := mustFind(t, tt.dir)
		got, ok := w.Superproject()
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: Find(%q).Superproject() = %q, %v; want %q", tt.name, tt.dir, got, ok, tt.want)
		}
		rule, err := workspace.NewRule(w, nil)
		if err != nil {
			t.Fatal(err)
		}
		text := rule.Describe()
		rule.Close()
		if said := strings.Contains(text, "nested: a submodule of "+tt.want+","); said != (tt.want != "") {
			t.Errorf("%s: the rule says nested %v, want %v:\n%s", tt.name, said, tt.want != "", text)
		}
	}
}
