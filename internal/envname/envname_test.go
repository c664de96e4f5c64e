package envname_test

import (
	"io/fs"
	"os"
	"path/filepath"
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
