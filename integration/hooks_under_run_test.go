package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHooksUnderRun: an agent with leasegate's hooks installed, itself run
// under `leasegate run`, keeps working: its hook calls touch nothing in the
// state directory (which the sidecar refuses its worker), so no refusal is
// printed, writes are granted to the worker's owner, and the shell check
// steps aside for the sidecar, which gates the command's writes itself.
func TestHooksUnderRun(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	events := map[string]string{
		"pre-write.json":   `{"session_id":"s1","cwd":"` + r.dir + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + filepath.Join(r.dir, "a.txt") + `","content":"x"}}`,
		"pre-bash.json":    `{"session_id":"s1","cwd":"` + r.dir + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"echo b > b.txt"}}`,
		"post-bash.json":   `{"session_id":"s1","cwd":"` + r.dir + `","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"echo b > b.txt"},"tool_response":{}}`,
		"stop.json":        `{"session_id":"s1","cwd":"` + r.dir + `","hook_event_name":"Stop"}`,
		"session-end.json": `{"session_id":"s1","cwd":"` + r.dir + `","hook_event_name":"SessionEnd"}`,
	}
	evDir := t.TempDir()
	for name, body := range events {
		if err := os.WriteFile(filepath.Join(evDir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hook := func(ev string) string {
		return bin + " hook claude-code < " + filepath.Join(evDir, ev) + " || echo hook-failed-" + ev + "; "
	}
	w := r.worker("alice", hook("pre-write.json")+hook("pre-bash.json")+"echo b > b.txt; "+hook("post-bash.json")+
		`test -n "$LEASEGATE_SIDECAR" || echo no-sidecar-env; `+
		`l=$(`+bin+` status --json); case "$l" in *a.txt*) ;; *) echo a-not-leased;; esac; `+
		hook("stop.json")+hook("session-end.json"))
	if code := w.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("worker exited %d; output:\n%s", code, w.out)
	}
	out := w.out.String()
	for _, bad := range []string{"refused", "hook-failed", "no-sidecar-env", "a-not-leased"} {
		if strings.Contains(out, bad) {
			t.Errorf("output holds %q:\n%s", bad, out)
		}
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".git/leasegate/hooks")); !os.IsNotExist(err) {
		t.Errorf("the hooks kept a session in the state directory under run (stat: %v)", err)
	}
}
