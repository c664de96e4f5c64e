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
	want := gate.Folding(lookupFolds(t, dir))
	w, err := Find(dir)
	if err != nil {
		t.Fatalf("Find(%s) = %v", dir, err)
	}
	if got := w.Folding(); got != want {
		t.Fatalf("Find(%s).Folding() = %v, want %v (a lookup in another case finds the file: %v)", dir, got, want, bool(want))
	}
}
