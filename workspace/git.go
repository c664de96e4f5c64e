package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/leasegate/leasegate/internal/gitrun"
)

// gitEnv is the environment of leasegate's git commands (gitrun.Env:
// nothing that points git at programs or at another repository), plus
// extra.
func gitEnv(extra ...string) []string { return gitrun.Env(extra...) }

// errNotRepo means the directory is not inside a git checkout.
var errNotRepo = errors.New("not a git repository")

// ErrNoWorkTree means the directory is inside a git directory that has no
// working tree: a bare repository, or the .git directory of a checkout.
// There is nothing there to gate, and no state directory to take: the
// workspace is a checkout of the repository.
var ErrNoWorkTree = errors.New("no working tree")

// runGit runs git in dir with env and returns its stdout. It returns errNotRepo when
// git says dir is not in a repository, ErrNoWorkTree when it is in a git
// directory without a working tree, and an error wrapping
// exec.ErrNotFound when there is no git.
func runGit(dir string, env []string, args ...string) (string, error) {
	cmd := gitrun.Command(context.Background(), dir, nil, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	switch {
	case err == nil:
		return stdout.String(), nil
	case strings.Contains(msg, "not a git repository"):
		return "", errNotRepo
	case strings.Contains(msg, "must be run in a work tree"):
		return "", ErrNoWorkTree
	case msg != "":
		return "", fmt.Errorf("git %s: %s: %w", args[0], msg, err)
	default:
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
}
