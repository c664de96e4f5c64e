package workspace

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// StateDirName is the state directory's name: inside the git dir, or at the
// root (as ".leasegate") outside git.
const StateDirName = "leasegate"

// Workspace is one checkout that leasegate gates: its root, its git dir and
// where leasegate keeps its state.
type Workspace struct {
	// Root is the absolute workspace root with symlinks resolved.
	Root string
	// GitDir is this checkout's git dir, absolute with symlinks resolved;
	// "" outside git. In a linked worktree it is the per-worktree dir
	// (<main>/.git/worktrees/<name>).
	GitDir string
	// CommonDir is the git dir shared by all worktrees of the repository
	// (objects, refs, hooks, info/exclude). It equals GitDir except in a
	// linked worktree; "" outside git.
	CommonDir string
	// StateDir holds the coordinator's socket, ledger, admin token and
	// blocker reports: <GitDir>/leasegate, or <Root>/.leasegate outside git.
	StateDir string
	// Config is leasegate.json at Root, or DefaultConfig() without one,
	// with LEASEGATE_CLUSTER applied (LoadEffectiveConfig).
	Config Config
	// Submodule is the root of the checkout nested in Root's tree that
	// Find started in when it joined Root's workspace (a submodule, or a
	// linked worktree made inside the tree: Nested says which); ""
	// otherwise.
	Submodule string
	// Nested says what Submodule is: NestedSubmodule or NestedWorktree.
	Nested string
}

// What a joined workspace's Submodule is (Workspace.Nested).
const (
	NestedSubmodule = "submodule"
	NestedWorktree  = "linked worktree"
)

// Find returns the workspace containing dir: the top of its git checkout,
// or dir itself outside git (or when git is not installed). Inside a
// submodule it is the outermost superproject's workspace (joinSuperproject),
// so that one coordinator owns every file of the tree. On macOS it
// asks the root's volume whether names fold case and sets the path rules
// by the answer (see DESIGN.md, "Platform code").
func Find(dir string) (*Workspace, error) {
	w, err := find(dir)
	if err != nil {
		return nil, err
	}
	adoptVolume(w)
	return w, nil
}

// find is Find before the volume is asked.
func find(dir string) (*Workspace, error) {
	w, err := findCheckout(dir)
	if err != nil {
		return nil, err
	}
	return joinSuperproject(w)
}

// findCheckout returns the checkout containing dir, a submodule's own.
func findCheckout(dir string) (*Workspace, error) {
	abs, err := resolveDir(dir)
	if err != nil {
		return nil, fmt.Errorf("find workspace: %w", err)
	}
	if w, ok := discover(abs); ok {
		return w, nil
	}
	w, err := discoverGit(abs)
	if errors.Is(err, errNotRepo) || errors.Is(err, exec.ErrNotFound) {
		w, err = &Workspace{Root: abs, StateDir: filepath.Join(abs, "."+StateDirName)}, nil
	}
	if errors.Is(err, ErrNoWorkTree) {
		return nil, noWorkTree(abs, err)
	}
	if err != nil {
		return nil, fmt.Errorf("find workspace from %s: %w", abs, err)
	}
	if w.Config, err = LoadEffectiveConfig(w.Root); err != nil {
		return nil, fmt.Errorf("find workspace: %w", err)
	}
	return w, nil
}

// noWorkTree says that abs, in a git directory without a working tree,
// has nothing to gate. Inside a checkout's .git (where the blocker reports
// are kept) it names the checkout to run in, so that a report's command
// pasted there can be run again; in a bare repository, how to make one.
func noWorkTree(abs string, err error) error {
	for d := abs; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if filepath.Base(d) == ".git" {
			root := linkedCheckout(d, abs)
			return fmt.Errorf("%s is inside the .git directory of the checkout %s, which leasegate does not gate: "+
				"run it in the checkout (cd %s, or --workspace %s): %w", abs, root, root, root, err)
		}
	}
	return fmt.Errorf("%s is in a git directory without a working tree (a bare repository): "+
		"leasegate gates the files of a checkout; run it in one (`git worktree add DIR` makes one from a bare repository): %w", abs, err)
}

// linkedCheckout is the checkout whose git directory in gitDir holds abs:
// a linked worktree's (.git/worktrees/NAME, whose gitdir file names the
// worktree's .git file), else the one around gitDir.
func linkedCheckout(gitDir, abs string) string {
	rel, _ := filepath.Rel(gitDir, abs)
	if parts := strings.Split(rel, string(filepath.Separator)); len(parts) >= 2 && parts[0] == "worktrees" {
		if b, err := os.ReadFile(filepath.Join(gitDir, "worktrees", parts[1], "gitdir")); err == nil {
			return filepath.Dir(strings.TrimSpace(string(b)))
		}
	}
	return filepath.Dir(gitDir)
}

// resolveDir makes dir absolute with symlinks resolved and checks that it
// is a directory.
func resolveDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", abs)
	}
	return abs, nil
}

// discoverGit asks git for the checkout containing dir, in one call.
func discoverGit(dir string) (*Workspace, error) {
	out, err := runGit(dir, gitEnv("LC_ALL=C"), "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("git rev-parse: unexpected output %q", out)
	}
	if !filepath.IsAbs(lines[2]) {
		lines[2] = filepath.Join(dir, lines[2])
	}
	for i, p := range lines {
		if lines[i], err = filepath.EvalSymlinks(p); err != nil {
			return nil, fmt.Errorf("git rev-parse: %w", err)
		}
	}
	return &Workspace{
		Root:      lines[0],
		GitDir:    lines[1],
		CommonDir: lines[2],
		StateDir:  filepath.Join(lines[1], StateDirName),
	}, nil
}
