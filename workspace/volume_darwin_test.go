package workspace

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestVolumeAnswerMatchesLookup: what the temp dir's volume answers to
// pathconf(_PC_CASE_SENSITIVE) is what a lookup in another case finds.
func TestVolumeAnswerMatchesLookup(t *testing.T) {
	dir := t.TempDir()
	found := lookupFolds(t, dir)
	if got := foldsCase(unix.Pathconf(dir, pcCaseSensitive)); got != found {
		t.Fatalf("the volume of %s folds case: %v, but a lookup in another case finds the file: %v", dir, got, found)
	}
}
