package integration_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// deepRepo is a git repository, with no coordinator running, at a path of
// at least n bytes. Cleanup stops any coordinator a command started in it.
func deepRepo(t *testing.T, n int) *repo {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for len(dir) < n {
		dir = filepath.Join(dir, strings.Repeat("d", 48))
	}
	r := bareRepoAt(t, dir)
	t.Cleanup(func() { killServe(dir) })
	return r
}

// bareRepoAt makes a git repository with README.md and a.txt at dir, with
// no coordinator running.
func bareRepoAt(t *testing.T, dir string) *repo {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &repo{t: t, dir: dir}
	r.env = append(cleanEnv(), "GIT_AUTHOR_NAME=it", "GIT_AUTHOR_EMAIL=it@example.com",
		"GIT_COMMITTER_NAME=it", "GIT_COMMITTER_EMAIL=it@example.com")
	r.write("README.md", "# it\n")
	r.write("a.txt", "a\n")
	r.git("init", "-q", "-b", "main")
	r.git("add", "-A")
	r.git("commit", "-qm", "initial")
	return r
}

// TestLongWorkspacePath: a workspace whose socket path is far past the
// kernel's 108 bytes works with every command: the coordinator starts on
// demand, and acquire, run, the agent hook and status reach it.
func TestLongWorkspacePath(t *testing.T) {
	r := deepRepo(t, 200)
	if n := len(filepath.Join(r.dir, ".git", "leasegate", "coord.sock")); n < 200 {
		t.Fatalf("socket path is %d bytes, want at least 200", n)
	}
	r.mustLG("acquire", "README.md", "--as", "carol")
	w := r.worker("alice", "echo x > a.txt")
	if code := w.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("run exited %d:\n%s", code, w.out)
	}
	if got := r.read("a.txt"); got != "x\n" {
		t.Fatalf("a.txt = %q after the worker's write", got)
	}
	ev := filepath.Join(t.TempDir(), "pre-write.json")
	body := `{"session_id":"s1","cwd":"` + r.dir + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` +
		filepath.Join(r.dir, "b.txt") + `","content":"x"}}`
	if err := os.WriteFile(ev, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := r.lgStdin(ev, "hook", "claude-code")
	if code != 0 {
		t.Fatalf("hook claude-code exited %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	st := r.mustLG("status", "--json")
	for _, want := range []string{`"README.md"`, `"b.txt"`, `"carol"`} {
		if !strings.Contains(st, want) {
			t.Errorf("status does not show %s:\n%s", want, st)
		}
	}

	// The sidecar starts a killed coordinator again at this path too.
	// The worker starts once run has its registration's answer: the
	// coordinator is killed only after that, not between the registration's
	// commit and its answer (which run would then find refused).
	sig := t.TempDir()
	started, trigger := filepath.Join(sig, "started"), filepath.Join(sig, "go")
	w = r.worker("dave", fmt.Sprintf(": > %s; while [ ! -e %s ]; do sleep 0.05; done; echo d > d.txt", started, trigger))
	eventually(t, 10*time.Second, "dave's worker started", func() bool { _, err := os.Stat(started); return err == nil })
	stopServe(t, r.dir)
	if err := os.WriteFile(trigger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code = w.wait(t, 30*time.Second)
	if got, err := os.ReadFile(filepath.Join(r.dir, "d.txt")); code != 0 || string(got) != "d\n" {
		t.Fatalf("dave's write after the coordinator was killed: exit %d, d.txt %q (%v):\n%s", code, got, err, w.out)
	}
	if !strings.Contains(w.out.String(), "starting the coordinator again") {
		t.Errorf("the sidecar did not start the coordinator again:\n%s", w.out)
	}
}

// lgStdin runs the leasegate CLI in the repo with the file at stdin as its
// input and returns stdout, stderr and the exit code.
func (r *repo) lgStdin(stdin string, args ...string) (string, string, int) {
	r.t.Helper()
	in, err := os.Open(stdin)
	if err != nil {
		r.t.Fatal(err)
	}
	defer in.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = r.dir, r.env, in
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	case err != nil:
		r.t.Fatalf("leasegate %v: %v", args, err)
	}
	return out.String(), errb.String(), 0
}

// servePIDs lists the `leasegate serve` processes of the workspace dir,
// or of any workspace when dir is "".
func servePIDs(dir string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		args := strings.Split(string(b), "\x00")
		if err != nil || len(args) < 2 || args[0] != bin || args[1] != "serve" || (dir != "" && !slices.Contains(args, dir)) {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(p, "/proc/%d/cmdline", &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// stopServe kills the coordinators of dir and waits until they are gone.
func stopServe(t *testing.T, dir string) {
	t.Helper()
	killServe(dir)
	eventually(t, 10*time.Second, "the coordinator of "+dir+" to end", func() bool { return len(servePIDs(dir)) == 0 })
}

// leftoverServes waits up to within for every coordinator the tests
// started to end (their workspaces are removed by now), then kills and
// returns those still running.
func leftoverServes(within time.Duration) []int {
	deadline := time.Now().Add(within)
	for len(servePIDs("")) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	left := servePIDs("")
	for _, pid := range left {
		kill(pid)
	}
	return left
}
