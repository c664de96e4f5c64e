package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/gate"
)

// lookupFolds reports whether dir's volume finds a file named in another
// case than it was created with.
func lookupFolds(t *testing.T, dir string) bool {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "probe"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := os.Lstat(filepath.Join(dir, "PROBE"))
	return err == nil
}

// TestFoldingIsTheVolumes: the folding a workspace gives gate is what a
// lookup in another case finds on the workspace's volume: exact case on
// Linux, folded on Windows and on macOS's default volumes.
func TestFoldingIsTheVolumes(t *testing.T) {
	dir := t.TempDir()
	folds := lookupFolds(t, dir)
	w, err := Find(dir)
	if err != nil {
		t.Fatalf("Find(%s) = %v", dir, err)
	}
	if got := w.Folding(); got&gate.FoldCase != 0 != folds {
		t.Fatalf("Find(%s).Folding() = %v, want case folded: %v (a lookup in another case finds the file)", dir, got, folds)
	}
}

// TestPathRulesFolding: the lease table folds what each platform's volume
// folds: nothing on Linux, case on Windows (NTFS does not normalize), and
// Unicode normalization on macOS, with case unless the volume is
// case-sensitive.
func TestPathRulesFolding(t *testing.T) {
	for _, tt := range []struct {
		name  string
		rules pathRules
		want  gate.Folding
	}{
		{"linux", unixRules, gate.ExactCase},
		{"windows", windowsRules, gate.FoldCase},
		{"macos", macRules, gate.FoldCase | gate.FoldNormalization},
		{"macos case-sensitive", macSensitiveRules, gate.FoldNormalization},
	} {
		if got := tt.rules.folding(); got != tt.want {
			t.Errorf("%s: folding() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestFoldingNormalizesAsTheVolume: the lease table takes a name's
// composed and decomposed spellings for one exactly when a lookup of one
// finds a file created as the other (APFS, HFS+; not ext4 or NTFS).
func TestFoldingNormalizesAsTheVolume(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "caf\u00e9"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := os.Lstat(filepath.Join(dir, "cafe\u0301"))
	w, ferr := Find(dir)
	if ferr != nil {
		t.Fatalf("Find(%s) = %v", dir, ferr)
	}
	if got, want := w.Folding()&gate.FoldNormalization != 0, err == nil; got != want {
		t.Fatalf("Find(%s).Folding() = %v, want normalization folded: %v (a lookup decomposed finds the composed file)", dir, w.Folding(), want)
	}
}
