package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/internal/gitrun"
)

// target is which settings file install and uninstall edit.
type target struct {
	user   bool // the user's own settings, in the home directory
	shared bool // the workspace's shared file, naming `leasegate` from PATH
	noMCP  bool // leave the agent's MCP configuration alone
}

// settingsFile is the file to edit for agent a under base, and a note
// for the user when the choice is not the obvious one: by default the
// agent's local, machine-specific file where it has one.
func settingsFile(a hooks.Agent, base string, to target) (string, string) {
	if to.user {
		return hooks.UserSettingsPath(a, base), ""
	}
	shared := hooks.SettingsPath(a, base)
	if to.shared {
		return shared, ""
	}
	if local, ok := hooks.LocalSettingsPath(a, base); ok {
		return local, ""
	}
	return shared, fmt.Sprintf("%s has no local settings file: the hooks name this binary's absolute path in %s; "+
		"for a file a team can commit, install with --shared (`leasegate` looked up in PATH)", a, shared)
}

// unignoredNote says when git would not ignore the agent's local
// settings file install wrote the absolute path of this binary to: the
// agent keeps that file out of git when it makes it, not when install
// does, and `git add -A` would commit one machine's path for the team.
func unignoredNote(ctx context.Context, root, path string) []string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return nil
	}
	err = gitrun.Command(ctx, root, nil, "check-ignore", "-q", "--", rel).Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		return nil // ignored, or not a question git answers here
	}
	return []string{fmt.Sprintf("note: git does not ignore %s, which names this binary's absolute path: keep it out of commits "+
		"(`echo %s >> \"$(git rev-parse --git-path info/exclude)\"`, or add it to .gitignore)", rel, filepath.ToSlash(rel))}
}

// otherFileNote says when leasegate's hooks for a are also in the other
// project file (the shared one after a local install, or the reverse):
// the agent runs both, and uninstall of one leaves the other.
func otherFileNote(a hooks.Agent, base, path, verb string, to target) []string {
	local, ok := hooks.LocalSettingsPath(a, base)
	if to.user || !ok {
		return nil
	}
	other, flag := hooks.SettingsPath(a, base), " --shared"
	if path != local {
		other, flag = local, ""
	}
	if hooks.InstalledIn(a, other) == 0 {
		return nil
	}
	if verb == "install" {
		return []string{fmt.Sprintf("note: leasegate's %s hooks are also in %s, and %s runs both: keep one (`leasegate uninstall %s%s` removes those)", a, other, a, a, flag)}
	}
	return []string{fmt.Sprintf("note: leasegate's %s hooks are still in %s (`leasegate uninstall %s%s` removes those)", a, other, a, flag)}
}

// hookProgram is the program the hooks will run: this binary's absolute
// path, or with shared the name `leasegate`, looked up in PATH by the
// agent. The absolute path is the one PATH reaches this binary by, when
// it does: a package manager's link (/opt/homebrew/bin/leasegate) names
// each upgrade's binary in turn, while the binary's own path (the
// versioned directory the link resolves to, which /proc/self/exe names)
// is removed by the next upgrade and every hook with it. An install
// refuses a binary that will not last: one that Go built for `go run` in
// its build cache or a temporary directory.
func hookProgram(name string, shared bool) (string, error) {
	if name != "install" {
		return "", nil
	}
	if shared {
		if _, err := exec.LookPath("leasegate"); err != nil {
			fmt.Fprintf(os.Stderr, "leasegate: warning: no leasegate in PATH: the hooks fail until there is one "+
				"(from a clone: `go install ./cmd/leasegate`, which puts it in %s)\n", goBin())
		}
		return "leasegate", nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", err
	}
	if transientBuild(exe) {
		return "", usagef("install: this leasegate is %s, a binary `go run` built in Go's build cache or a temporary directory "+
			"(`go clean -cache` deletes it): the hooks would stop working. Install a lasting binary and run its install: "+
			"`go install ./cmd/leasegate` from the clone, then `%s install ...` (or --shared, to name `leasegate` from PATH)",
			exe, filepath.Join(goBin(), "leasegate"))
	}
	if p := pathName(exe); p != "" {
		return p, nil
	}
	return exe, nil
}

// pathName is the absolute path by which PATH finds `leasegate` when that
// is the binary exe, else "".
func pathName(exe string) string {
	p, err := exec.LookPath("leasegate")
	if err != nil {
		return ""
	}
	if p, err = filepath.Abs(p); err != nil {
		return ""
	}
	found, err := os.Stat(p)
	if err != nil {
		return ""
	}
	self, err := os.Stat(exe)
	if err != nil || !os.SameFile(found, self) {
		return ""
	}
	return p
}

// transientBuild reports whether exe lies where Go keeps what it builds
// for `go run` and tests: a go-build directory (the build cache,
// GOCACHE, or a go-build* temporary directory).
func transientBuild(exe string) bool {
	if cache := os.Getenv("GOCACHE"); cache != "" && strings.HasPrefix(exe, filepath.Clean(cache)+string(filepath.Separator)) {
		return true
	}
	for _, part := range strings.Split(filepath.Dir(exe), string(filepath.Separator)) {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// goBin is where `go install` puts binaries: $GOBIN, else $GOPATH/bin,
// else ~/go/bin.
func goBin() string {
	if b := os.Getenv("GOBIN"); b != "" {
		return b
	}
	if p := os.Getenv("GOPATH"); p != "" {
		return filepath.Join(filepath.SplitList(p)[0], "bin")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, "go", "bin")
}
