package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Asking git where the checkout is (`git rev-parse`) costs a process, a
// millisecond and more of every command and hook call. discover answers
// the same question by walking up from the directory to the first .git, the
// way git discovers a repository, for the layouts it can tell for sure: a
// .git directory, or a .git file (linked worktree, submodule) naming its
// git dir. Anything else (a bare repository, a git dir found before any
// .git, core.worktree naming another directory, a filesystem boundary, a
// directory another user owns, an include in the repository's config, the
// environment steering discovery) is left to git. Like the git path of
// Find, it disregards GIT_DIR and GIT_WORK_TREE: leasegate always names
// the repository itself.

// discoveryEnv are the variables that change how git discovers a
// repository; when one is set, even to "", only git can tell.
var discoveryEnv = []string{
	"GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_OBJECT_DIRECTORY",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_TEST_ASSUME_DIFFERENT_OWNER",
}

// discover returns the workspace of the git checkout around dir, or false
// when it cannot be sure of the answer git would give.
func discover(dir string) (*Workspace, bool) {
	for _, name := range discoveryEnv {
		if _, set := os.LookupEnv(name); set {
			return nil, false
		}
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return nil, false
	}
	if d, err = filepath.EvalSymlinks(d); err != nil {
		return nil, false
	}
	start, err := os.Stat(d)
	if err != nil || !start.IsDir() {
		return nil, false
	}
	for {
		fi, err := os.Stat(filepath.Join(d, ".git"))
		switch {
		case err == nil:
			return checkoutAt(d, fi)
		case !errors.Is(err, fs.ErrNotExist) || isGitDir(d, d):
			return nil, false
		}
		parent := filepath.Dir(d)
		if parent == d || !sameDevice(start, parent) {
			return nil, false
		}
		d = parent
	}
}

// checkoutAt returns the workspace whose root is root, which holds .git
// (described by git).
func checkoutAt(root string, git os.FileInfo) (*Workspace, bool) {
	gitDir, commonDir, ok := gitDirs(root, git)
	if !ok || !isGitDir(gitDir, commonDir) || !ownedByUs(root, filepath.Join(root, ".git"), gitDir, commonDir) {
		return nil, false
	}
	set, err := readGitConfig(filepath.Join(commonDir, "config"), filepath.Join(gitDir, "config.worktree"))
	if err != nil || set.bare || !worktreeIs(set.worktree, gitDir, root) {
		return nil, false
	}
	cfg, err := LoadEffectiveConfig(root)
	if err != nil {
		return nil, false
	}
	return &Workspace{Root: root, GitDir: gitDir, CommonDir: commonDir,
		StateDir: filepath.Join(gitDir, StateDirName), Config: cfg}, true
}

// gitDirs returns the git dir and common dir of the checkout at root, with
// symlinks resolved: .git itself, or the directory a .git file names and
// the common dir its commondir file names.
func gitDirs(root string, git os.FileInfo) (gitDir, commonDir string, ok bool) {
	gitDir = filepath.Join(root, ".git")
	switch {
	case git.IsDir():
		if exists(filepath.Join(gitDir, "commondir")) {
			return "", "", false
		}
	case git.Mode().IsRegular():
		if gitDir, ok = readPointer(gitDir, "gitdir: ", root); !ok {
			return "", "", false
		}
	default:
		return "", "", false
	}
	if gitDir, ok = resolve(gitDir); !ok {
		return "", "", false
	}
	commonDir = gitDir
	if exists(filepath.Join(gitDir, "commondir")) {
		if commonDir, ok = readPointer(filepath.Join(gitDir, "commondir"), "", gitDir); !ok {
			return "", "", false
		}
		if commonDir, ok = resolve(commonDir); !ok {
			return "", "", false
		}
	}
	return gitDir, commonDir, true
}

// readPointer reads a one-line file holding prefix and a path, relative
// to base unless absolute.
func readPointer(path, prefix, base string) (string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	line, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), prefix)
	if !ok || line == "" || strings.ContainsAny(line, "\n\r") {
		return "", false
	}
	if !filepath.IsAbs(line) {
		line = filepath.Join(base, line)
	}
	return line, true
}

// isGitDir reports whether gitDir looks like a git directory to git: a
// HEAD holding a symbolic ref or an object id, and objects and refs in its
// common dir. Git passes over a directory that does not, and so does
// discover (leaving the answer to git).
func isGitDir(gitDir, commonDir string) bool {
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil || !validHead(strings.TrimRight(string(head), "\n")) {
		return false
	}
	return isDir(filepath.Join(commonDir, "objects")) && isDir(filepath.Join(commonDir, "refs"))
}

// validHead reports whether head is "ref: refs/..." or a hex object id.
func validHead(head string) bool {
	if ref, ok := strings.CutPrefix(head, "ref:"); ok {
		return strings.HasPrefix(strings.TrimLeft(ref, " \t"), "refs/")
	}
	if len(head) != 40 && len(head) != 64 {
		return false
	}
	for _, c := range head {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// worktreeIs reports whether core.worktree (relative to the git dir) is
// unset or names root.
func worktreeIs(worktree, gitDir, root string) bool {
	if worktree == "" {
		return true
	}
	if !filepath.IsAbs(worktree) {
		worktree = filepath.Join(gitDir, worktree)
	}
	wt, ok := resolve(worktree)
	return ok && wt == root
}

// ownedByUs reports whether the current user owns every path: git refuses
// a repository another user owns unless safe.directory allows it, and only
// git can tell whether it does.
func ownedByUs(paths ...string) bool {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || !ownedByMe(fi) {
			return false
		}
	}
	return true
}

func sameDevice(start os.FileInfo, dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && sameVolume(start, fi)
}

func resolve(p string) (string, bool) {
	r, err := filepath.EvalSymlinks(p)
	return r, err == nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// GitEnvNotFollowed returns the variables of this environment that point
// git at a repository or work tree elsewhere (GIT_DIR, GIT_WORK_TREE), as
// NAME=VALUE joined by ", ", or "" when neither is set. Find does not
// follow them, so that a checkout is named by its directory alone whoever
// asks (a git hook runs with GIT_DIR set, an agent's shell without);
// a command that finds no checkout names them, since git, told by them,
// would say there is one.
func GitEnvNotFollowed() string {
	var set []string
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE"} {
		if v := os.Getenv(name); v != "" {
			set = append(set, name+"="+v)
		}
	}
	return strings.Join(set, ", ")
}
