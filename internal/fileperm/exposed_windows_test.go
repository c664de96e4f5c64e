package fileperm_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/internal/fileperm"
)

// TestExposedNotByMode: on Windows a file written with mode 0600 reads as
// 0666 and is not taken as exposed, or no secret could ever be used.
func TestExposedNotByMode(t *testing.T) {
	file := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(file, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fileperm.Exposed(fi) {
		t.Errorf("Exposed(a file just written with 0600, mode %s) = true, want false", fi.Mode())
	}
}
