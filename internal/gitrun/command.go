package gitrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// neutralized are the settings given to every git leasegate runs, above
// any config file. Each names a command git would otherwise take from the
// repository's (or the user's) config and run: an fsmonitor hook when the
// index is read, hooks, a pager, an external diff or textconv, an ssh or
// askpass program, credential helpers, automatic maintenance. Filter
// drivers cannot be switched off by name here (their names come from
// attributes); on Linux, Command's process may execute nothing but git
// itself (see restrict_linux.go).
var neutralized = []string{
	"core.fsmonitor=false",
	"core.hooksPath=/dev/null",
	"core.pager=cat",
	"core.sshCommand=false",
	"core.askPass=",
	"core.editor=false",
	"core.gitProxy=",
	"core.alternateRefsCommand=",
	"credential.helper=",
	"diff.external=",
	"gc.auto=0",
	"maintenance.auto=false",
	"protocol.allow=never",
	"submodule.recurse=false",
}

// keptVars are the only environment variables a leasegate git sees, besides
// those a caller adds: where git and the user's config are, and nothing
// that points git at programs (GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND,
// GIT_PAGER, GIT_ASKPASS, GIT_CONFIG_PARAMETERS...) or another repository
// (GIT_DIR set by a hook).
var keptVars = []string{
	"PATH", "HOME", "XDG_CONFIG_HOME", "USER", "LOGNAME", "TMPDIR", "TZ",
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
}

// Cmd is one git command. Its Start, Run and Output start git so that it
// can execute no other program where the kernel allows that restriction;
// use them, not the embedded exec.Cmd's.
type Cmd struct {
	*exec.Cmd
}

// Command returns git with args, run in dir, with the neutralized settings
// and the minimal environment plus env (NAME=value entries, which win).
func Command(ctx context.Context, dir string, env []string, args ...string) *Cmd {
	full := make([]string, 0, 2*len(neutralized)+1+len(args))
	for _, kv := range neutralized {
		full = append(full, "-c", kv)
	}
	full = append(full, "--no-pager")
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	cmd.Dir = dir
	cmd.Env = Env(env...)
	return &Cmd{cmd}
}

// Env is the minimal environment of a leasegate git, plus extra.
func Env(extra ...string) []string {
	env := make([]string, 0, len(keptVars)+len(extra)+1)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		for _, k := range keptVars {
			if name == k {
				env = append(env, kv)
			}
		}
	}
	env = append(env, "LC_ALL=C")
	return append(env, extra...)
}

// Start starts git, unable to execute anything else where the kernel
// allows (restrict_linux.go).
func (c *Cmd) Start() error { return startRestricted(c.Cmd) }

// Run starts git and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Output runs git and returns its standard output. Unless Stderr is set, a
// failure's *exec.ExitError carries the end of git's standard error.
func (c *Cmd) Output() ([]byte, error) {
	var out strings.Builder
	c.Stdout = &out
	var tail *exitTail
	if c.Stderr == nil {
		tail = &exitTail{}
		c.Stderr = tail
	}
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok && tail != nil {
		ee.Stderr = tail.b
	}
	return []byte(out.String()), err
}

// exitTail keeps the first 4 KiB of git's standard error.
type exitTail struct{ b []byte }

func (t *exitTail) Write(p []byte) (int, error) {
	if room := 4096 - len(t.b); room > 0 {
		t.b = append(t.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// Failed is the error of a git command that failed: what ran (as "git
// ARGS"), its error, and what git said on standard error when it said
// anything, so that a git that could not even start (not installed) reads
// as that and nothing more.
func Failed(args []string, err error, stderr string) error {
	what := "git " + strings.Join(args, " ")
	if msg := strings.TrimSpace(stderr); msg != "" {
		return fmt.Errorf("%s: %w: %s", what, err, msg)
	}
	return fmt.Errorf("%s: %w", what, err)
}
