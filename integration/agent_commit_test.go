package integration_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// The agent-commit tests drive each real agent through the most common
// flow with `install AGENT` and `install git` in place: the model writes
// files with its write tool (the hooks take their leases for the
// session), then commits them with `git commit` through its own shell
// tool. The git hooks must know the commit as the session's, by the agent
// process among their ancestors: the session's own files are committed
// and their leases released, a file another owner holds refuses the
// commit, and the model reads the refusal as the tool's output.

// Contents the mock models write.
const (
	commitA = "package a\n"
	commitC = "package c\n\nconst C = 1\n"
)

// The shell commands the mock models run: the first commits a.go and c.go
// with c.go changed again before the commit (committed, yet still dirty);
// the second commits everything, b.go too, which bob holds.
const (
	ownCommit   = "git add a.go c.go && echo '// after' >> c.go && git commit -qm own && echo own-committed"
	otherCommit = "git add -A && git commit -qm other"
)

// newCommitRepo is the repository an agent commits in: git hooks
// installed, and b.go changed outside the gate while bob holds it by a
// check-out.
func newCommitRepo(t *testing.T) *repo {
	t.Helper()
	r := newRepo(t, map[string]string{"b.go": "package b\n", "c.go": "package c\n"})
	r.mustLG("install", "git")
	r.mustLG("acquire", "b.go", "--as", "bob")
	r.write("b.go", "package b\n\n// changed outside the gate\n")
	return r
}

// checkAgentCommit checks what the session named prefix... did in r, from
// the shell results its model received (the own commit's, then the other
// one's): the own commit exists with the model's a.go; a.go's lease went
// with the commit, the release recorded with its reason, while c.go,
// still dirty, kept its lease through it; the commit including b.go was
// refused naming bob, and the model was told so.
func checkAgentCommit(t *testing.T, r *repo, prefix string, results []string, log string) {
	t.Helper()
	if len(results) < 2 {
		t.Fatalf("the model received %d tool results, want the two commits' last: %q\n%s", len(results), results, log)
	}
	own, other := results[len(results)-2], results[len(results)-1]
	if !strings.Contains(own, "own-committed") || strings.Contains(own, "commit refused") {
		t.Errorf("the session's commit of its own files was not made; the model read:\n%s\n%s", own, log)
	}
	want, told := "own\ninitial\n", []string{"commit refused", "b.go: leased by bob"}
	if got := r.git("log", "--format=%s"); got != want {
		t.Errorf("commits = %q, want %q", got, want)
	}
	ownCommit := strings.TrimSpace(r.git("rev-parse", ":/^own"))
	if got := r.git("show", ownCommit+":a.go"); got != commitA {
		t.Errorf("a.go committed as %q, want the model's %q", got, commitA)
	}
	owner := grantedTo(t, r, "a.go")
	if !strings.HasPrefix(owner, prefix) {
		t.Errorf("a.go was granted to %q, want the session (%s...)", owner, prefix)
	}
	if e, ok := commitRelease(r, "a.go"); !ok || e.Actor != owner {
		t.Errorf("a.go's history %v: want a release on commit by %s", r.history("a.go"), owner)
	}
	if grantedTo(t, r, "c.go") != owner {
		t.Errorf("c.go's history %v: want it granted to %s", r.history("c.go"), owner)
	}
	if e, ok := commitRelease(r, "c.go"); ok && strings.HasPrefix(ownCommit, strings.TrimPrefix(e.Reason, "committed in ")) {
		t.Errorf("c.go, changed again after it was staged, was released by the commit: %+v", e)
	}
	for _, w := range told {
		if !strings.Contains(other, w) {
			t.Errorf("the output of the commit including b.go lacks %q; the model read:\n%s", w, other)
		}
	}
}

// grantedTo returns the owner path's first lease was granted to.
func grantedTo(t *testing.T, r *repo, path string) string {
	t.Helper()
	for _, e := range r.history(path) {
		if e.Type == gate.EventGranted {
			return e.Actor
		}
	}
	t.Fatalf("%s was never leased: %v", path, r.history(path))
	return ""
}

// TestClaudeCodeCommitsItsWork: the real Claude Code writes with its
// Write tool and commits with its Bash tool.
func TestClaudeCodeCommitsItsWork(t *testing.T) {
	r := newCommitRepo(t)
	write := func(name, body string) toolCall {
		return toolCall{"Write", fmt.Sprintf(`{"file_path":%q,"content":%q}`, filepath.Join(r.dir, name), body)}
	}
	bash := func(cmd string) toolCall { return toolCall{"Bash", fmt.Sprintf(`{"command":%q}`, cmd)} }
	m := newScriptedMock(t, write("a.go", commitA), write("c.go", commitC), bash(ownCommit), bash(otherCommit))
	out, err := newClaudeRun(t, r, m).run(t, "write a.go and c.go, commit them, then commit everything", "Write,Bash")
	_, results := m.seen()
	if err != nil {
		t.Fatalf("claude -p: %v; tool results %q\n%s", err, results, out)
	}
	checkAgentCommit(t, r, "cc-", results, out)
}

// TestCodexCommitsItsWork: the real Codex CLI, in its workspace-write
// sandbox, writes with apply_patch and commits with its shell tool.
func TestCodexCommitsItsWork(t *testing.T) {
	codex := codexProgram(t)
	r := newCommitRepo(t)
	patch := "*** Begin Patch\n*** Add File: a.go\n+package a\n*** Update File: c.go\n@@\n package c\n+\n+const C = 1\n*** End Patch\n"
	shell := func(cmd string) toolCall {
		return toolCall{"exec_command", fmt.Sprintf(`{"cmd":%q,"yield_time_ms":30000}`, cmd)}
	}
	m := newScriptedResponses(t, toolCall{"apply_patch", patch}, shell(ownCommit), shell(otherCommit))
	env := codexEnv(t, r, codex, m)
	codexWritableGit(t, env, r)
	if out, code := lgIn(t, r.dir, env, "install", "codex", "--trust"); code != 0 {
		t.Fatalf("install codex --trust: exit %d\n%s", code, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := codexCommand(ctx, r, codex, env)
	out, err := cmd.CombinedOutput()
	tools, results := m.seen()
	if err != nil {
		t.Fatalf("codex exec: %v; tools offered %v; tool results %q\n%s", err, tools, results, out)
	}
	checkAgentCommit(t, r, "codex-", results, string(out))
}

// codexWritableGit lets Codex's workspace-write sandbox write the
// repository's .git, which it keeps read-only by default, as a user who
// wants the agent to commit configures it.
func codexWritableGit(t *testing.T, env []string, r *repo) {
	t.Helper()
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CODEX_HOME="); ok {
			home = v
		}
	}
	cfg := filepath.Join(home, "config.toml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data = fmt.Appendf(data, "\n[sandbox_workspace_write]\nwritable_roots = [%q]\nnetwork_access = true\n", filepath.Join(r.dir, ".git"))
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestGeminiCommitsItsWork: the real Gemini CLI writes with write_file
// and commits with run_shell_command, which it runs with git's hooks off.
// Its BeforeTool hook turns leasegate's git hooks back on for each
// command that may commit, so the session's commit is released by the
// post-commit hook and the commit that took bob's b.go is refused before
// it is made, as Claude Code's and Codex's are.
func TestGeminiCommitsItsWork(t *testing.T) {
	r := newCommitRepo(t)
	m := newGenerateMock(t, geminiWrite(r, "a.go", commitA), geminiWrite(r, "c.go", commitC), geminiShell(ownCommit), geminiShell(otherCommit))
	g := newGeminiRun(t, r, m)
	g.install(t)
	_, log := g.run(t, "write a.go and c.go, commit them, then commit everything")
	_, results := m.seen()
	checkAgentCommit(t, r, "gemini-", results, log)
}

// TestGeminiCommitWithoutVerifyReported: a commit that skips git's hooks
// (--no-verify) is made even where the BeforeTool hook turned them on;
// the AfterTool hook tells the model, after it, that the commit took
// bob's b.go, and reports it to the operator.
func TestGeminiCommitWithoutVerifyReported(t *testing.T) {
	r := newCommitRepo(t)
	m := newGenerateMock(t, geminiShell("git add -A && git commit -q --no-verify -m slipped"))
	g := newGeminiRun(t, r, m)
	g.install(t)
	_, log := g.run(t, "commit everything")
	_, results := m.seen()
	if got := r.git("log", "--format=%s"); got != "slipped\ninitial\n" {
		t.Fatalf("commits = %q, want the one without hooks made\n%s", got, log)
	}
	for _, w := range []string{"committed files that other owners hold", "b.go (leased by bob"} {
		if len(results) != 1 || !strings.Contains(results[0], w) {
			t.Errorf("the model was not told %q after the commit; it read %q", w, results)
		}
	}
	reported := false
	for _, u := range r.status().Ungated {
		reported = reported || u.Path == "b.go" && u.Op == "commit" && strings.HasPrefix(u.Reporter, "gemini-")
	}
	if !reported {
		t.Errorf("the commit of b.go was not reported to the operator: %+v", r.status().Ungated)
	}
}

// TestGeminiUnderRunCommitRefused: under `leasegate run --as carol` the
// sidecar gates no write of .git, and the AfterTool hook looks at no
// commit (the sidecar answers for the session's writes), so the guard is
// all that stands between Gemini CLI's model and a commit of bob's b.go:
// with git's hooks turned back on for the command, it refuses it, naming
// carol as the committer.
func TestGeminiUnderRunCommitRefused(t *testing.T) {
	r := newCommitRepo(t)
	m := newGenerateMock(t, geminiShell(otherCommit))
	g := newGeminiRun(t, r, m)
	g.install(t)
	r.mustLG("status") // the coordinator is up before the worker
	w := r.startEnv(g.env[len(r.env):], "run", "--as", "carol", "--", g.program, "-m", geminiModel, "-p", "commit everything", "--approval-mode", "yolo")
	if code := w.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("run gemini: exit %d\n%s", code, w.out)
	}
	_, results := m.seen()
	if got := r.git("log", "--format=%s"); got != "initial\n" {
		t.Errorf("commits = %q, want none made\n%s", got, w.out)
	}
	for _, want := range []string{"commit refused", "committing as carol", "b.go: leased by bob"} {
		if len(results) != 1 || !strings.Contains(results[0], want) {
			t.Errorf("the model was not told %q; it read %q", want, results)
		}
	}
}

// geminiWrite is Gemini CLI's write_file of name in r.
func geminiWrite(r *repo, name, body string) toolCall {
	return toolCall{"write_file", fmt.Sprintf(`{"file_path":%q,"content":%q}`, filepath.Join(r.dir, name), body)}
}

// geminiShell is Gemini CLI's run_shell_command of cmd.
func geminiShell(cmd string) toolCall {
	return toolCall{"run_shell_command", fmt.Sprintf(`{"command":%q,"description":"commit"}`, cmd)}
}

// TestCodexSandboxWithoutNetworkRefusesCommit: in Codex's workspace-write
// sandbox with .git writable but no network access, the sandbox refuses
// the guard's connection to the coordinator: the commit is refused at
// once with that cause named, not after waiting for a coordinator that
// cannot be reached.
func TestCodexSandboxWithoutNetworkRefusesCommit(t *testing.T) {
	codex := codexProgram(t)
	r := newRepo(t, map[string]string{"a.go": "package a\n"})
	r.mustLG("install", "git")
	r.write("a.go", "package a // changed\n")
	home := t.TempDir()
	cmd := exec.Command(codex, "sandbox", "-c", `sandbox_mode="workspace-write"`,
		"-c", fmt.Sprintf("sandbox_workspace_write.writable_roots=[%q]", filepath.Join(r.dir, ".git")), "--", "git", "commit", "-qam", "x")
	cmd.Dir, cmd.Env = r.dir, append(slices.Clone(r.env), "HOME="+home, "CODEX_HOME="+home)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err == nil || !strings.Contains(string(out), "connect: operation not permitted") || !strings.Contains(string(out), "network_access = true") {
		t.Fatalf("git commit in the sandbox: %v, want it refused naming the refused connection and the setting:\n%s", err, out)
	}
	if took > 5*time.Second {
		t.Errorf("the refusal took %s, want it at once", took)
	}
	if got := r.git("log", "--format=%s"); got != "initial\n" {
		t.Errorf("commits = %q, want none made", got)
	}
}

// TestGeminiAllowRuleForGitSuffices: with the user's ordinary allow rule
// for git (`--allowed-tools 'run_shell_command(git)'`, no yolo), the
// commit of bob's b.go that Gemini CLI's model runs gets git's hooks back
// by `git -c` and is refused by the guard, and a commit of nothing held
// (after unstaging what the refused one staged) is made. Before, the command was given a first line exporting
// GIT_CONFIG_PARAMETERS, which that rule does not allow: Gemini CLI
// denied both commands by policy unless `run_shell_command(export)` was
// allowed too.
func TestGeminiAllowRuleForGitSuffices(t *testing.T) {
	r := newCommitRepo(t)
	m := newGenerateMock(t, geminiShell(otherCommit), geminiShell("git reset -q && git commit -q --allow-empty -m empty"))
	g := newGeminiRun(t, r, m)
	g.install(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.program, "-m", geminiModel, "-p", "commit everything", "--allowed-tools", "run_shell_command(git)", "--output-format", "json")
	cmd.Dir, cmd.Env = r.dir, g.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gemini -p: %v\n%s", err, out)
	}
	_, results := m.seen()
	if len(results) != 2 || !strings.Contains(results[0], "commit refused") || !strings.Contains(results[0], "b.go: leased by bob") {
		t.Errorf("the model was not told the guard refused the commit of bob's b.go; it read %q\n%s", results, out)
	}
	if got := r.git("log", "--format=%s"); got != "empty\ninitial\n" {
		t.Errorf("commits = %q, want the empty one made and the one of bob's b.go refused\n%s", got, out)
	}
}
