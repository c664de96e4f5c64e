package workspace

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// Anchor remembers which files a workspace's root, state directory and
// ledger were, so that its coordinator can tell when they are removed or
// replaced (a temporary clone or a linked worktree deleted under it).
type Anchor struct {
	paths []string
	infos []os.FileInfo
}

// Anchor records the identity of the workspace's root, state directory
// and ledger file (none when the ledger is shared on a cluster) as they
// are now.
func (w *Workspace) Anchor() (*Anchor, error) {
	a := &Anchor{paths: []string{w.Root, w.StateDir}}
	if w.Config.Cluster == nil {
		a.paths = append(a.paths, w.LedgerPath())
	}
	for _, p := range a.paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		a.infos = append(a.infos, fi)
	}
	return a, nil
}

// Removed names the first anchored path that is gone or is another file
// now, and says which; it returns "" while every one is still there. A
// path that cannot be checked for another reason (permissions) counts as
// there.
func (a *Anchor) Removed() string {
	for i, p := range a.paths {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			return p + " was removed"
		case err != nil:
			continue
		case !os.SameFile(fi, a.infos[i]):
			return p + " was replaced"
		}
	}
	return ""
}
