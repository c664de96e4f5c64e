package integration_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// agentSession is a stand-in for a coding agent: a shell installed under
// the agent's program name (its command name is what the hooks look
// for), running script with no variable naming the session.
type agentSession struct {
	cmd *exec.Cmd
	out *syncBuffer
}

func startAgent(t *testing.T, r *repo, program, script string) *agentSession {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink("/bin/sh", filepath.Join(dir, program)); err != nil {
		t.Fatal(err)
	}
	a := &agentSession{out: &syncBuffer{}}
	a.cmd = exec.Command(filepath.Join(dir, program), "-c", script+"; sleep 60")
	a.cmd.Dir, a.cmd.Stdout, a.cmd.Stderr = r.dir, a.out, a.out
	a.cmd.SysProcAttr = ownGroup()
	a.cmd.WaitDelay = 5 * time.Second
	for _, kv := range r.env {
		if !strings.HasPrefix(kv, "CLAUDE") && !strings.HasPrefix(kv, "CODEX") {
			a.cmd.Env = append(a.cmd.Env, kv)
		}
	}
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killGroup(a.cmd.Process.Pid); _ = a.cmd.Wait() })
	return a
}

// waitFor waits until the agent printed line.
func (a *agentSession) waitFor(t *testing.T, line string) {
	t.Helper()
	eventually(t, 60*time.Second, "the agent to print "+line, func() bool { return strings.Contains(a.out.String(), line) })
}

// eventFile writes a hook input to a file and returns its path.
func eventFile(t *testing.T, ev map[string]any) string {
	t.Helper()
	data, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func claudeWrite(r *repo, session, file string) map[string]any {
	return map[string]any{"session_id": session, "cwd": r.dir, "hook_event_name": "PreToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": filepath.Join(r.dir, file), "content": "x"}}
}

// ownerLiveness returns the liveness of owner name, failing when it is unknown.
func ownerLiveness(t *testing.T, r *repo, name string) gate.Liveness {
	t.Helper()
	for _, o := range r.status().Owners {
		if o.Name == name {
			return o.Liveness
		}
	}
	t.Fatalf("owner %s is not registered; status: %+v", name, r.status().Owners)
	return gate.Liveness{}
}

// TestHookThroughWrapperKeepsLease: a hook run through `timeout` (a
// wrapper that exits with the call) keeps its session's lease: the agent
// process is found by what it is, not taken to be the wrapper. Where no
// agent can be found (a plain shell), the session is judged by its hook
// calls as heartbeats, and is alive, not declared dead with the wrapper.
func TestHookThroughWrapperKeepsLease(t *testing.T) {
	for _, tc := range []struct{ program, evidence string }{{"claude", "pid"}, {"sh", "heartbeat"}} {
		t.Run(tc.program, func(t *testing.T) {
			r := newRepo(t, map[string]string{"a.txt": "a\n"})
			ev := eventFile(t, claudeWrite(r, "s1", "a.txt"))
			a := startAgent(t, r, tc.program, "timeout 60 "+bin+" hook claude-code < "+ev+"; echo hook-exit=$?")
			a.waitFor(t, "hook-exit=")
			if !strings.Contains(a.out.String(), "hook-exit=0") {
				t.Fatalf("the hook did not allow the write:\n%s", a.out)
			}
			time.Sleep(2 * time.Second) // the wrapper is gone: an owner tied to it is dead by now
			v := ownerLiveness(t, r, "cc-s1")
			if v.Status == gate.Dead || !strings.Contains(strings.Join(v.Evidence, "; "), tc.evidence) {
				t.Fatalf("cc-s1 is %s (%v), want alive by its %s", v.Status, v.Evidence, tc.evidence)
			}
			if r.holders()["a.txt"] != "cc-s1" {
				t.Fatalf("a.txt is not held by cc-s1 any more: %v", r.holders())
			}
			if _, errs, code := r.lg("acquire", "a.txt", "--as", "bob"); code == 0 {
				t.Fatalf("bob checked out a.txt, which cc-s1 holds: %s", errs)
			}
		})
	}
}

// TestCodexSessionCommitReleases: a Codex-style session (no variable
// names it) writes a file through its hook and commits it with git: the
// git hooks know the committer by the agent process in their ancestry,
// so the commit is not refused and the lease is released.
func TestCodexSessionCommitReleases(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	r.mustLG("install", "git")
	ev := eventFile(t, map[string]any{"session_id": "s2", "cwd": r.dir, "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
		"tool_input": map[string]any{"command": "*** Begin Patch\n*** Update File: f.txt\n@@\n-old\n+new\n*** End Patch\n"}})
	a := startAgent(t, r, "codex", bin+" hook codex < "+ev+" && echo new > f.txt && git commit -qam change && echo committed")
	a.waitFor(t, "committed")
	eventually(t, 20*time.Second, "the committed file's lease to be released", func() bool {
		_, held := r.holders()["f.txt"]
		return !held
	})
}

// TestHookOwnedAgentChildRefused: a process under a hook session's agent
// (its Bash tool) acts only as that session: `leasegate release --as
// alice` is refused, naming the session, and alice keeps her lease.
func TestHookOwnedAgentChildRefused(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	r.mustLG("acquire", "b.txt", "--as", "alice")
	ev := eventFile(t, claudeWrite(r, "s3", "a.txt"))
	a := startAgent(t, r, "claude", bin+" hook claude-code < "+ev+"; "+bin+" release b.txt --as alice; echo release-exit=$?")
	a.waitFor(t, "release-exit=")
	out := a.out.String()
	if !strings.Contains(out, "release-exit=3") || !strings.Contains(out, "cc-s3") {
		t.Fatalf("the agent's child was not refused as cc-s3:\n%s", out)
	}
	if r.holders()["b.txt"] != "alice" {
		t.Fatalf("alice lost b.txt: %v", r.holders())
	}
}

// TestHookFindsAgentByTranscript: an agent under a name the hooks do not
// know is found as the process that holds the session's transcript open
// (as Codex holds its rollout file), so a hook run through `timeout`
// registers the agent, not the wrapper or no one.
func TestHookFindsAgentByTranscript(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	transcript := filepath.Join(t.TempDir(), "session.jsonl")
	ev := claudeWrite(r, "s4", "a.txt")
	ev["transcript_path"] = transcript
	a := startAgent(t, r, "myagent", "exec 3>>"+transcript+"; timeout 60 "+bin+" hook claude-code < "+eventFile(t, ev)+" 3>&-; echo hook-exit=$?")
	a.waitFor(t, "hook-exit=")
	if !strings.Contains(a.out.String(), "hook-exit=0") {
		t.Fatalf("the hook did not allow the write:\n%s", a.out)
	}
	for _, o := range r.status().Owners {
		if o.Name == "cc-s4" && o.PID != a.cmd.Process.Pid {
			t.Fatalf("cc-s4 registered pid %d, want the agent's %d (it holds the transcript)", o.PID, a.cmd.Process.Pid)
		}
	}
	if v := ownerLiveness(t, r, "cc-s4"); v.Status == gate.Dead {
		t.Fatalf("cc-s4 is dead: %v", v.Evidence)
	}
}
