//go:build !windows

package console_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leasegate/leasegate/console"
)

// TestSelfSignedCertPrivate: the console writes its key for its owner
// alone (mode 0600) and refuses a key file that group or others may read.
// Windows shows no such mode (internal/fileperm).
func TestSelfSignedCertPrivate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "console.pem")
	now := time.Date(2026, 11, 27, 7, 0, 0, 0, time.UTC)
	if _, err := console.SelfSignedCert(file, []string{"192.0.2.2"}, now); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("certificate file: %v, mode %v, want 0600", err, fi.Mode())
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := console.SelfSignedCert(file, nil, now); !errors.Is(err, console.ErrKeyExposed) {
		t.Errorf("SelfSignedCert with the key file 0644 = %v, want ErrKeyExposed", err)
	}
}
