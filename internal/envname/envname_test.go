package envname_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNamesLiveHere fails when a program file outside this package spells
// a LEASEGATE_* variable as a string literal of its own instead of using
// the table.
func TestNamesLiveHere(t *testing.T) {
	root := filepath.Join("..", "..")
	here := filepath.Join(root, "internal", "envname")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || p == here):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go"):
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), `"LEASEGATE_`) {
			t.Errorf("%s spells a LEASEGATE_ variable as a literal; name it in internal/envname", p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking the module: %v", err)
	}
}

// TestREADMENamesEveryVariable: every variable of the table but the
// tests' own (LEASEGATE_TEST_*) is in the README, where a user looks up
// what a LEASEGATE_* in their environment does; the variables run sets
// for its gate's helper processes were in none.
func TestREADMENamesEveryVariable(t *testing.T) {
	src, err := os.ReadFile("envname.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`= "(LEASEGATE_[A-Z_]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(names) == 0 {
		t.Fatal("envname.go names no variable")
	}
	for _, m := range names {
		if !strings.HasPrefix(m[1], "LEASEGATE_TEST_") && !strings.Contains(string(readme), "`"+m[1]) {
			t.Errorf("README does not name %s", m[1])
		}
	}
}
