package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// strippedVars are environment variables that would make git look
// somewhere other than where it is run (git sets some of them for hooks;
// leasegate always names the repository itself), or read paths differently
// (GIT_LITERAL_PATHSPECS=1 makes check-ignore refuse every path).
var strippedVars = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_PREFIX",
	"GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS",
}

// gitEnv is the current environment without strippedVars, plus extra.
func gitEnv(extra ...string) []string {
	env := make([]string, 0, len(os.Environ())+len(extra))
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(strippedVars, name) {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// errNotRepo means the directory is not inside a git checkout.
var errNotRepo = errors.New("not a git repository")

// runGit runs git in dir with env and returns its stdout. It returns errNotRepo when
// git says dir is not in a repository, and an error wrapping
// exec.ErrNotFound when there is no git.
func runGit(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
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
	case msg != "":
		return "", fmt.Errorf("git %s: %s: %w", args[0], msg, err)
	default:
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
}
