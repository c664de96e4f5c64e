package workspace_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/workspace"
)

// checkIgnorePids lists this process's children running git check-ignore.
func checkIgnorePids(t *testing.T) []int {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(data)) {
			pid, _ := strconv.Atoi(field)
			cmdline, _ := os.ReadFile("/proc/" + field + "/cmdline")
			if bytes.Contains(cmdline, []byte("check-ignore")) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func TestCheckIgnoreProcessLifetime(t *testing.T) {
	repo := mustRepo(t)
	mustWrite(t, repo, ".gitignore", "*.log\n")
	r, err := workspace.NewRule(mustFind(t, repo), testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if pids := checkIgnorePids(t); len(pids) != 0 {
		t.Fatalf("check-ignore processes before the first question = %v, want none", pids)
	}
	if got := r.Classify("a.log"); got != workspace.Ignored {
		t.Fatalf("Classify(%q) = %v, want %v", "a.log", got, workspace.Ignored)
	}
	pids := checkIgnorePids(t)
	if len(pids) != 1 {
		t.Fatalf("check-ignore processes after a question = %v, want one", pids)
	}
	// Killed behind the rule's back, it is restarted for the next question.
	p, _ := os.FindProcess(pids[0]) // cannot fail on Unix
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if got := r.Classify("b.log"); got != workspace.Ignored {
		t.Errorf("Classify(%q) after the process was killed = %v, want %v", "b.log", got, workspace.Ignored)
	}
	if now := checkIgnorePids(t); len(now) != 1 || now[0] == pids[0] {
		t.Errorf("check-ignore processes after a restart = %v, want one other than %d", now, pids[0])
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if left := checkIgnorePids(t); len(left) != 0 {
		t.Errorf("check-ignore processes after Close = %v, want none", left)
	}
	// Closed: cached verdicts still answer, new questions fail toward gating.
	if got := r.Classify("a.log"); got != workspace.Ignored {
		t.Errorf("Classify(%q) after Close = %v, want the cached %v", "a.log", got, workspace.Ignored)
	}
	if got := r.Classify("c.log"); got != workspace.Gated {
		t.Errorf("Classify(%q) after Close = %v, want %v", "c.log", got, workspace.Gated)
	}
	if left := checkIgnorePids(t); len(left) != 0 {
		t.Errorf("check-ignore processes after a question to a closed rule = %v, want none", left)
	}
}

func TestGitUnavailableGatesEverything(t *testing.T) {
	repo := mustRepo(t)
	mustWrite(t, repo, ".gitignore", "*.log\n")
	w := mustFind(t, repo)
	t.Setenv("PATH", t.TempDir())
	var logs syncBuffer
	r, err := workspace.NewRule(w, hclog.New(&hclog.LoggerOptions{Output: &logs}))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Classify("a.log"); got != workspace.Gated {
		t.Errorf("Classify(%q) without git = %v, want %v", "a.log", got, workspace.Gated)
	}
	if got := r.ClassifyTree("dir"); got != workspace.Gated {
		t.Errorf("ClassifyTree(%q) without git = %v, want %v", "dir", got, workspace.Gated)
	}
	if !strings.Contains(logs.String(), "git not found") {
		t.Errorf("log = %q, want it to say git was not found", logs.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Git refuses (and exits on) paths beyond a symlink. Those are gated, one
// git restart per linked directory; the rule carries on, and an ignored
// directory above such a link (a pnpm node_modules) still answers for
// everything beneath it. Paths in a submodule are answered by pattern.
func TestPathsGitCannotCheck(t *testing.T) {
	repo := mustRepo(t)
	mustWrite(t, repo, ".gitignore", "node_modules/\n*.log\n")
	mustSymlink(t, t.TempDir(), filepath.Join(repo, "linked"))
	mustWrite(t, repo, "node_modules/.pnpm/pkg/index.js", "")
	mustSymlink(t, ".pnpm/pkg", filepath.Join(repo, "node_modules", "pkg"))
	sub := filepath.Join(repo, "sub")
	mustWrite(t, sub, "f", "")
	mustGit(t, sub, "init", "-q")
	mustGit(t, sub, "add", "f")
	mustGit(t, sub, "-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-q", "-m", "x")
	mustGit(t, repo, "add", "sub")
	r := mustRule(t, mustFind(t, repo))

	tests := []struct {
		rel  string
		tree bool
		want workspace.Class
		why  string
	}{
		{rel: "linked/x.go", want: workspace.Gated, why: "cannot check"},
		{rel: "linked/y.go", want: workspace.Gated, why: "cannot check"},
		{rel: "linked", tree: true, want: workspace.Gated},
		{rel: "linked", want: workspace.Gated, why: "not ignored"},
		{rel: "sub/f", want: workspace.Gated, why: "not ignored"},
		{rel: "sub/g.log", want: workspace.Ignored},
		{rel: "node_modules/pkg/index.js", want: workspace.Ignored, why: "node_modules/"},
		{rel: ":!b.log", want: workspace.Gated, why: "cannot check"}, // git reads it as pathspec magic
		{rel: "a.log", want: workspace.Ignored},
	}
	for _, tt := range tests {
		explain := r.Explain
		if tt.tree {
			explain = r.ExplainTree
		}
		got, why := explain(tt.rel)
		if got != tt.want || !strings.Contains(why, tt.why) {
			t.Errorf("Explain(%q, tree %v) = %v, %q, want %v, %q", tt.rel, tt.tree, got, why, tt.want, tt.why)
		}
	}
}

// The rule relies on git answering each path as soon as it reads it when
// its stdout is a pipe; without that, a question would wait for the end of
// input. Git flushes per path on a pipe by default (the rule also sets
// GIT_FLUSH=1); this checks the default, with GIT_FLUSH unset.
func TestGitFlushesPerPathOnPipe(t *testing.T) {
	repo := mustRepo(t)
	mustWrite(t, repo, ".gitignore", "*.log\n")
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "check-ignore", "--stdin", "-z", "--verbose", "--non-matching")
	cmd.Dir = repo
	cmd.Env = filterEnv(os.Environ())
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "GIT_FLUSH=") {
			cmd.Env[i] = "GIT_FLUSH_UNSET="
		}
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	defer func() {
		inW.Close()
		cmd.Wait()
		outR.Close()
	}()
	if _, err := inW.WriteString("a.log\x00"); err != nil {
		t.Fatal(err)
	}
	if err := outR.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	want := ".gitignore\x001\x00*.log\x00a.log\x00"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(outR, got); err != nil {
		t.Fatalf("reading the answer with stdin still open: %v (git did not flush)", err)
	}
	if string(got) != want {
		t.Errorf("answer = %q, want %q", got, want)
	}
}

// GIT_LITERAL_PATHSPECS=1 in the environment would make git check-ignore
// refuse every path; the rule runs git without it.
func TestClassifyIgnoresPathspecEnv(t *testing.T) {
	repo := mustRepo(t)
	mustWrite(t, repo, ".gitignore", "*.log\n")
	t.Setenv("GIT_LITERAL_PATHSPECS", "1")
	r := mustRule(t, mustFind(t, repo))
	if got, why := r.Explain("a.log"); got != workspace.Ignored {
		t.Errorf("Explain(%q) with GIT_LITERAL_PATHSPECS=1 = %v, %q, want %v", "a.log", got, why, workspace.Ignored)
	}
}
