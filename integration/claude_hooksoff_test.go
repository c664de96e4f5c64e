package integration_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeHooksOffDoctor: with "disableAllHooks": true in the
// project's shared settings the real Claude Code runs none of the hooks
// leasegate installed in the local file: its Write of a file another
// owner holds goes through. doctor says so, naming the setting and the
// file, and exits 1; once the local file sets it back to false, Claude
// Code runs the hooks again (the held file is left alone) and doctor is
// content.
func TestClaudeCodeHooksOffDoctor(t *testing.T) {
	r := newRepo(t, map[string]string{"held.txt": "old\n"})
	registerSleeper(t, r, "bob")
	r.mustLG("acquire", "--as", "bob", "held.txt")
	write := fmt.Sprintf(`{"file_path":%q,"content":"new\n"}`, filepath.Join(r.dir, "held.txt"))
	m := newMessagesMock(t, "Write", write)
	c := newClaudeRun(t, r, m)
	doctor := func() (string, int) {
		cmd := exec.Command(bin, "doctor")
		cmd.Dir, cmd.Env = r.dir, c.env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return out.String(), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), 0
	}
	shared := filepath.Join(r.dir, ".claude", "settings.json")
	r.write(".claude/settings.json", `{"disableAllHooks": true}`+"\n")
	if out, code := doctor(); code != 1 || !strings.Contains(out, "disableAllHooks") || !strings.Contains(out, shared) {
		t.Errorf("doctor with disableAllHooks in %s: exit %d, want 1 naming the setting and the file:\n%s", shared, code, out)
	}
	if out, err := c.run(t, "write held.txt", "Write"); err != nil || r.read("held.txt") != "new\n" {
		t.Fatalf("claude -p with disableAllHooks: %v; held.txt = %q, want Claude Code to run no hook and write it\n%s", err, r.read("held.txt"), out)
	}

	r.write("held.txt", "old\n")
	local := r.read(".claude/settings.local.json")
	r.write(".claude/settings.local.json", strings.Replace(local, "{", `{"disableAllHooks": false, `, 1))
	if out, code := doctor(); code != 0 || strings.Contains(out, "disableAllHooks") {
		t.Errorf("doctor with disableAllHooks false in the local file: exit %d, want 0 and no word of it:\n%s", code, out)
	}
	m2 := newMessagesMock(t, "Write", write)
	c.env = append(c.env, "ANTHROPIC_BASE_URL="+m2.srv.URL)
	out, _ := c.run(t, "write held.txt", "Write")
	if got := r.read("held.txt"); got != "old\n" {
		t.Fatalf("held.txt = %q with the local file turning hooks back on, want the hook to keep it\n%s", got, out)
	}
}
