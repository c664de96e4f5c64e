package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/leasegate/leasegate/internal/fileperm"
)

// AdminTokenBytes is the number of random bytes in an admin token; the file
// holds them as hex.
const AdminTokenBytes = 32

// ErrTokenExposed means the admin token file is readable or writable by
// others than its owner; leasegate refuses to use such a token.
var ErrTokenExposed = errors.New("admin token file is accessible to group or others")

// AdminToken returns the workspace's admin token, creating it (mode 0600,
// AdminTokenBytes random bytes as hex) on first use. It refuses a token file
// whose mode grants anything to group or others (not judged on Windows,
// whose modes do not show it: internal/fileperm), a symlink, and a file
// that does not hold a token.
func (w *Workspace) AdminToken() (string, error) {
	path := w.AdminTokenPath()
	tok, err := readAdminToken(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	if err := w.EnsureStateDir(); err != nil {
		return "", err
	}
	return createAdminToken(path)
}

func readAdminToken(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("admin token %s is not a regular file", path)
	}
	if fileperm.Exposed(fi) {
		return "", fmt.Errorf("admin token %s has mode %04o, want 0600 (chmod 600 %s): %w", path, fi.Mode().Perm(), path, ErrTokenExposed)
	}
	data, err := io.ReadAll(io.LimitReader(f, 4*AdminTokenBytes))
	if err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	tok := strings.TrimSpace(string(data))
	if b, err := hex.DecodeString(tok); err != nil || len(b) != AdminTokenBytes {
		return "", fmt.Errorf("admin token %s is malformed: want %d hex digits (delete it to make a new one)", path, 2*AdminTokenBytes)
	}
	return tok, nil
}

// createAdminToken writes a new token to a temporary file and links it into
// place, so a concurrent reader never sees a partial token and two racing
// creators agree on one.
func createAdminToken(path string) (string, error) {
	b := make([]byte, AdminTokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".admin.token.*")
	if err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := writeAndClose(tmp, hex.EncodeToString(b)+"\n"); err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("admin token: %w", err)
	}
	return readAdminToken(path)
}

func writeAndClose(f *os.File, s string) error {
	_, err := f.WriteString(s)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
