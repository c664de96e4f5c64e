//go:build !windows

package fileperm_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/internal/fileperm"
)

// TestExposedByMode: a file for its owner alone is private; any access
// for group or others exposes it.
func TestExposedByMode(t *testing.T) {
	file := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(file, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode os.FileMode
		want bool
	}{{0o600, false}, {0o400, false}, {0o640, true}, {0o604, true}, {0o620, true}} {
		if err := os.Chmod(file, tc.mode); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := fileperm.Exposed(fi); got != tc.want {
			t.Errorf("Exposed(mode %04o) = %v, want %v", tc.mode, got, tc.want)
		}
	}
}
