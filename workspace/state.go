package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SocketPath is the coordinator's unix socket.
func (w *Workspace) SocketPath() string { return filepath.Join(w.StateDir, "coord.sock") }

// LedgerPath is the coordinator's bbolt ledger file.
func (w *Workspace) LedgerPath() string { return filepath.Join(w.StateDir, "ledger.db") }

// AdminTokenPath is the file holding the admin token; see AdminToken.
func (w *Workspace) AdminTokenPath() string { return filepath.Join(w.StateDir, "admin.token") }

// BlockersDir receives the blocker reports.
func (w *Workspace) BlockersDir() string { return filepath.Join(w.StateDir, "blockers") }

// EnsureStateDir creates the state directory and its blockers directory
// with mode 0700, and tightens them to 0700 if they exist with another
// mode. A state directory that is a symlink or a file is an error, and so
// is one another user owns (a *ForeignStateError), root included: the
// files a coordinator makes there would be its own, 0600, and lock the
// directory's user out of its ledger.
func (w *Workspace) EnsureStateDir() error {
	for _, dir := range []string{w.StateDir, w.BlockersDir()} {
		if err := ensurePrivateDir(dir); err != nil {
			return fmt.Errorf("state dir: %w", err)
		}
	}
	return nil
}

func ensurePrivateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return withParentOwner(err, filepath.Dir(dir))
	}
	if err := checkOwner(dir); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (mode %s)", dir, fi.Mode())
	}
	if fi.Mode().Perm() == 0o700 {
		return nil
	}
	return os.Chmod(dir, 0o700)
}

// withParentOwner adds to a permission error making a directory in parent
// whose user owns parent, when another user does: a checkout's .git that
// only its owner may write holds no state directory of this user's.
func withParentOwner(err error, parent string) error {
	var fe *ForeignStateError
	if !errors.Is(err, fs.ErrPermission) || !errors.As(checkOwner(parent), &fe) {
		return err
	}
	return fmt.Errorf("%w (%s belongs to user %s, and this user may not write in it: run this as %s, or work in a clone of your own)",
		err, parent, fe.Owner, fe.Owner)
}
