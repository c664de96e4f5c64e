package integration_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHookRefusesPathNoLeaseCanName: a Claude Code write of a path inside
// the workspace that no lease can name (over the 4096-byte limit, or
// holding a NUL byte) is refused with the reason, not let through
// ungated as if it lay outside the workspace.
func TestHookRefusesPathNoLeaseCanName(t *testing.T) {
	r := newRepo(t, nil)
	long := filepath.Join(r.dir, strings.Repeat(strings.Repeat("d", 200)+"/", 21)+"f.txt")
	for name, c := range map[string]struct{ path, want string }{
		"too long": {long, "over the 4096 byte limit"},
		"nul":      {filepath.Join(r.dir, "nul\x00x.txt"), "contains a NUL byte"},
	} {
		body, err := json.Marshal(map[string]any{"session_id": "s1", "cwd": r.dir, "hook_event_name": "PreToolUse",
			"tool_name": "Write", "tool_input": map[string]string{"file_path": c.path, "content": "x"}})
		if err != nil {
			t.Fatal(err)
		}
		ev := filepath.Join(t.TempDir(), "event.json")
		if err := os.WriteFile(ev, body, 0o600); err != nil {
			t.Fatal(err)
		}
		out, errs, code := r.lgStdin(ev, "hook", "claude-code")
		var got struct {
			Out struct{ PermissionDecision, PermissionDecisionReason string } `json:"hookSpecificOutput"`
		}
		_ = json.Unmarshal([]byte(out), &got)
		if got.Out.PermissionDecision != "deny" || !strings.Contains(got.Out.PermissionDecisionReason, c.want) ||
			!strings.Contains(got.Out.PermissionDecisionReason, "no path a lease can name") {
			t.Errorf("%s: hook claude-code exited %d, stdout %s, stderr %s; want a refusal saying %q", name, code, out, errs, c.want)
		}
	}
}

// TestInvalidUTF8NameIsOneLease: a worker's write of a name that is not
// valid UTF-8 is leased under the name as JSON carries it (each stray
// byte U+FFFD), and the watcher that sees the raw name finds that lease:
// the write is not reported as ungated, while a write no worker made is.
func TestInvalidUTF8NameIsOneLease(t *testing.T) {
	r := newRepo(t, nil)
	trigger := filepath.Join(t.TempDir(), "go")
	w := r.worker("alice", "printf x > \"$(printf 'bad\\377.txt')\"; while [ ! -e "+trigger+" ]; do sleep 0.05; done")
	eventually(t, 20*time.Second, "alice's lease", func() bool { return r.holders()["bad\ufffd.txt"] == "alice" })
	r.write("plain.txt", "ungated\n")
	eventually(t, 20*time.Second, "the ungated write of plain.txt", func() bool { _, ok := r.ungatedWrites()["plain.txt"]; return ok })
	for p := range r.ungatedWrites() {
		if strings.HasPrefix(p, "bad") {
			t.Errorf("alice's gated write of %q is reported as ungated", p)
		}
	}
	if err := os.WriteFile(trigger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := w.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("alice exited %d:\n%s", code, w.out)
	}
}
