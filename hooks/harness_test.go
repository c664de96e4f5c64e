package hooks_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/hooks"
)

// repo is a real git repository in a temporary directory. Its path is
// short: the coordinator's unix socket lives beneath it.
type repo struct {
	t    testing.TB
	root string
}

func newRepo(t testing.TB) *repo {
	t.Helper()
	dir, err := os.MkdirTemp("", "lg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := &repo{t: t, root: root}
	r.git("init", "-q", "-b", "main", ".")
	r.write("README.md", "readme\n")
	r.write(".gitignore", "build/\n")
	r.git("add", ".")
	r.git("commit", "-q", "-m", "init")
	return r
}

// env is the environment of every process a test runs: none of the
// caller's leasegate, Claude Code or git settings leak in, and no command
// starts a coordinator by itself (each test starts its own and stops it).
func env(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "LEASEGATE_") || strings.HasPrefix(name, "CLAUDE") || strings.HasPrefix(name, "GIT_") {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "LEASEGATE_NO_START=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1")
	return append(out, extra...)
}

func (r *repo) write(rel, content string) {
	r.t.Helper()
	writeFile(r.t, filepath.Join(r.root, rel), content, 0o644)
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	res := r.exec(nil, "", "git", args...)
	if res.code != 0 {
		r.t.Fatalf("git %s: exit %d\n%s%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
	}
	return res.stdout
}

// result is what a process printed and its exit status.
type result struct {
	stdout, stderr string
	code           int
}

func (r *repo) exec(extraEnv []string, stdin, prog string, args ...string) result {
	r.t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = r.root, env(extraEnv...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("%s: %v", prog, err)
	}
	return result{stdout.String(), stderr.String(), code}
}

// leasegate runs the binary in the repository.
func (r *repo) leasegate(extraEnv []string, stdin string, args ...string) result {
	r.t.Helper()
	return r.exec(extraEnv, stdin, leasegateBin, args...)
}

// mustLeasegate runs the binary and fails the test unless it succeeds.
func (r *repo) mustLeasegate(args ...string) string {
	r.t.Helper()
	res := r.leasegate(nil, "", args...)
	if res.code != 0 {
		r.t.Fatalf("leasegate %s: exit %d\n%s%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
	}
	return res.stdout
}

// hook runs `leasegate hook AGENT` on a fixture whose "/repo" paths are
// this repository's, with the session id replaced by session.
func (r *repo) hook(agent hooks.Agent, fixture, session string, extraEnv ...string) result {
	r.t.Helper()
	return r.leasegate(extraEnv, r.input(agent, fixture, session), "hook", string(agent))
}

func (r *repo) input(agent hooks.Agent, fixture, session string) string {
	in := strings.ReplaceAll(string(readFixture(r.t, agent, fixture)), `"/repo`, `"`+r.root)
	for _, s := range []string{"s-alice", "s-codex", "s-gemini", "c-cursor"} {
		in = strings.ReplaceAll(in, `"`+s+`"`, `"`+session+`"`)
	}
	return in
}

// serve starts the repository's coordinator with one-second windows and
// stops it when the test ends.
func (r *repo) serve() {
	r.t.Helper()
	cmd := exec.Command(leasegateBin, "serve", "--workspace", r.root, "--retry-after", "1s", "--idle-after", "1s", "--idle-exit", "0")
	cmd.Env = env()
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if r.t.Failed() {
			r.t.Logf("coordinator log:\n%s", log.String())
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for r.leasegate(nil, "", "status", "--json").code != 0 { // exit 5 while none answers
		if time.Now().After(deadline) {
			r.t.Fatalf("the coordinator did not answer within 10s:\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *repo) status() leasegate.Status {
	r.t.Helper()
	var s leasegate.Status
	if err := json.Unmarshal([]byte(r.mustLeasegate("status", "--json")), &s); err != nil {
		r.t.Fatal(err)
	}
	return s
}

func (r *repo) blockers() []blocker.Report {
	r.t.Helper()
	var reps []blocker.Report
	if err := json.Unmarshal([]byte(r.mustLeasegate("blockers", "--json")), &reps); err != nil {
		r.t.Fatal(err)
	}
	return reps
}

// holders maps each leased path to its holder.
func (r *repo) holders() map[string]string {
	out := map[string]string{}
	for _, l := range r.status().Leases {
		for _, p := range l.Scope.Paths {
			out[p] = l.Owner.Name
		}
	}
	return out
}

// eventually polls cond until it holds or 5 s pass: the coordinator's
// stop-idle timer runs on its own clock, in another process.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
