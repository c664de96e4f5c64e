package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/leasegate/leasegate"
)

// Anchor remembers which files a workspace's root, state directory and
// ledger were, and which ledger and pair rules its leasegate.json named,
// so that its coordinator can tell when they are removed or replaced (a
// temporary clone or a linked worktree deleted under it, a "cluster"
// added to leasegate.json while it serves).
type Anchor struct {
	paths []string
	infos []os.FileInfo
	// The configuration the coordinator serves by (LEASEGATE_CLUSTER
	// applied), and the file it was read from as it was then (nil when
	// there was none).
	root   string
	ledger string // the ledger file's path
	cfg    Config
	cfgFI  os.FileInfo
}

// Anchor records the identity of the workspace's root, state directory
// and ledger file (none when the ledger is shared on a cluster) as they
// are now, and the ledger and pair rules its configuration names.
func (w *Workspace) Anchor() (*Anchor, error) {
	a := &Anchor{paths: []string{w.Root, w.StateDir}, root: w.Root, ledger: w.LedgerPath(), cfg: w.Config}
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
	a.cfgFI, _ = os.Stat(filepath.Join(w.Root, ConfigFile))
	return a, nil
}

// Removed names the first anchored path that is gone or is another file
// now, and says which; or says that leasegate.json now names another
// ledger or other pair rules than the coordinator serves by, which it
// cannot take while it runs (the ledger is opened and the pair rules
// compiled at its start). It returns "" while nothing of that changed. A
// path that cannot be checked for another reason (permissions) counts as
// there; a leasegate.json that does not load is waited out, since every
// command refuses it and the operator is mending it.
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
	return a.configChanged()
}

// configChanged reads leasegate.json again when it is another file or was
// written since it was last read, and says how it differs from the
// configuration served, in what the coordinator cannot follow (the
// ledger, its etcd session's TTL, the pair rules; what is gated its
// watcher follows, Rule.Follow). The
// environment is applied as at the start (it is this process's), so a
// coordinator whose LEASEGATE_CLUSTER names its ledger serves on whatever
// the file comes to name.
func (a *Anchor) configChanged() string {
	fi, err := os.Stat(filepath.Join(a.root, ConfigFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if sameConfigFile(fi, a.cfgFI) {
		return ""
	}
	a.cfgFI = fi
	cfg, err := LoadEffectiveConfig(a.root)
	if err != nil {
		return ""
	}
	if was, now := ledgerView(a.cfg, a.ledger), ledgerView(cfg, a.ledger); !was.Same(now) {
		return fmt.Sprintf("%s now names %s as the ledger, not %s, which this coordinator serves", ConfigFile, now, was)
	}
	if was, now := a.cfg.Cluster, cfg.Cluster; was != nil && now != nil && was.TTL() != now.TTL() {
		return fmt.Sprintf("%s changed the session TTL to %s (this coordinator's session has %s)", ConfigFile, ttlName(now), ttlName(was))
	}
	if !slices.Equal(cfg.Pairs, a.cfg.Pairs) {
		return fmt.Sprintf("%s changed its pair rules to %q (this coordinator pairs by %q)", ConfigFile, cfg.Pairs, a.cfg.Pairs)
	}
	return ""
}

// ttlName is how a cluster's session TTL was given.
func ttlName(c *Cluster) string {
	if c.SessionTTL == "" {
		return "the default"
	}
	return fmt.Sprintf("%q", c.SessionTTL)
}

// sameConfigFile reports whether a and b (nil: no file) are the same
// file, unwritten since: same inode, size and modification time.
func sameConfigFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// Ledger is the ledger the workspace's configuration names, and what
// named it.
func (w *Workspace) Ledger() leasegate.LedgerView { return ledgerView(w.Config, w.LedgerPath()) }

// ledgerView is the ledger c names: its cluster's, or the file at file.
func ledgerView(c Config, file string) leasegate.LedgerView {
	if c.Cluster == nil {
		return leasegate.LedgerView{File: file, From: c.ClusterFrom}
	}
	eps := slices.Clone(c.Cluster.Endpoints)
	slices.Sort(eps)
	return leasegate.LedgerView{Endpoints: eps, Workspace: c.Cluster.Workspace, From: c.ClusterFrom}
}
