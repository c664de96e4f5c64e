package integration_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/internal/envname"
)

// TestWrappedHookGoneWithdrawsContention: a gating hook run by the
// fail-closed line, waiting on a held file, whose shell the agent kills
// (as Gemini CLI and Codex kill the process they started when they give
// up a call) ends its wait and withdraws its contention at once, as a
// hook the agent killed directly does, instead of waiting on for a write
// nobody makes.
func TestWrappedHookGoneWithdrawsContention(t *testing.T) {
	r := newCheckout(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	r.dial()
	if out, code := lgIn(t, r.dir, r.env, "install", "gemini", "--no-mcp"); code != 0 {
		t.Fatalf("install gemini: exit %d\n%s", code, out)
	}
	var settings struct {
		Hooks struct {
			BeforeTool []struct {
				Matcher string                     `json:"matcher"`
				Hooks   []struct{ Command string } `json:"hooks"`
			} `json:"BeforeTool"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(r.read(".gemini/settings.json")), &settings); err != nil || len(settings.Hooks.BeforeTool) == 0 {
		t.Fatalf("no BeforeTool hooks in .gemini/settings.json (%v)", err)
	}
	line := settings.Hooks.BeforeTool[0].Hooks[0].Command
	if !strings.HasPrefix(line, "/bin/sh -c ") {
		t.Fatalf("the write_file hook is not the fail-closed line: %s", line)
	}

	event := `{"session_id":"s1","cwd":"` + r.dir + `","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"` +
		r.dir + `/a.txt","content":"x"}}`
	shell := exec.Command("bash", "-c", line) // as Gemini CLI runs it
	shell.Dir, shell.Stdin = r.dir, strings.NewReader(event)
	shell.Env = append(append([]string(nil), r.env...), envname.RetryAfter+"="+longRetry, envname.HookTimeout+"=120s")
	if err := shell.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = shell.Wait(); close(done) }()
	t.Cleanup(func() { _ = shell.Process.Kill(); <-done })
	eventually(t, 10*time.Second, "the hook's contention", func() bool {
		for _, c := range r.status().Contentions {
			if c.Requester == "gemini-s1" && c.Outcome == leasegate.Contended {
				return true
			}
		}
		return false
	})
	_ = shell.Process.Kill()
	eventually(t, 5*time.Second, "the withdrawal of the hook whose shell was killed", func() bool { return len(withdrawnOf(r, "a.txt", "gemini-s1")) == 1 })
}
