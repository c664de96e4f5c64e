package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// wineCLI runs the Windows leasegate under wine as a user of a Windows
// without AF_UNIX meets it (Wine 8 has none): run is refused at once,
// install writes Claude Code's hook in its exec form naming the .exe, a
// gating hook with no coordinator refuses the write (exit 2, the reason
// in the agent's JSON and on stderr), and serve says the system has no
// unix sockets rather than waiting.
func wineCLI(t *testing.T, wine string, prefix []string, overlay string) {
	exe := filepath.Join(t.TempDir(), "leasegate.exe")
	build := exec.Command("go", "build", "-overlay", overlay, "-o", exe, "./cmd/leasegate")
	build.Dir, build.Env = "..", slices.Concat(os.Environ(), windowsTarget)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build leasegate.exe: %v\n%s", err, out)
	}
	r := newCheckout(t, map[string]string{"a.txt": "a\n"})
	lg := wineCommand(t, wine, exe, r.dir, slices.Concat(cleanEnv(), prefix))

	res := lg("", "run", "--as", "alice", "--", "cmd", "/c", "echo ran")
	res.want(t, 2, "windows/amd64", "leasegate install claude-code|codex|gemini|cursor")

	lg("", "install", "claude-code").want(t, 0)
	command := claudeHookCommand(t, filepath.Join(r.dir, ".claude", "settings.local.json"))
	if want := windowsPath(exe); command != want {
		t.Errorf("installed hook command = %q, want the .exe by its Windows path %q", command, want)
	}

	in, err := json.Marshal(map[string]any{"session_id": "s1", "cwd": windowsPath(r.dir), "hook_event_name": "PreToolUse",
		"tool_name": "Write", "tool_input": map[string]string{"file_path": windowsPath(filepath.Join(r.dir, "a.txt")), "content": "b\n"}})
	if err != nil {
		t.Fatal(err)
	}
	hook := lg(string(in), "hook", "claude-code")
	hook.want(t, 2, "cannot be reached", "a.txt")
	if !strings.Contains(hook.stdout, `"permissionDecision":"deny"`) {
		t.Errorf("hook with no coordinator printed %q, want Claude Code's deny", hook.stdout)
	}

	lg("", "serve").want(t, 5, "this system has no unix sockets (AF_UNIX)")
}

// wineResult is what a Windows leasegate printed and its exit code.
type wineResult struct {
	args           []string
	stdout, stderr string
	code           int
}

// want fails the test unless the command exited with code and its
// stderr holds each of says.
func (r wineResult) want(t *testing.T, code int, says ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("leasegate.exe %s exited %d, want %d\nstdout: %s\nstderr: %s", strings.Join(r.args, " "), r.code, code, r.stdout, r.stderr)
	}
	for _, s := range says {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("leasegate.exe %s said %q, want it to say %q", strings.Join(r.args, " "), r.stderr, s)
		}
	}
}

// wineCommand returns a function that runs exe under wine in dir, each
// run bounded by a minute.
func wineCommand(t *testing.T, wine, exe, dir string, env []string) func(stdin string, args ...string) wineResult {
	return func(stdin string, args ...string) wineResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, wine, append([]string{exe}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, env, strings.NewReader(stdin), &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("leasegate.exe %s under wine: %v", strings.Join(args, " "), err)
		}
		return wineResult{args: args, stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
	}
}

// claudeHookCommand returns the command of the first PreToolUse hook in a
// Claude Code settings file, checking it is in exec form.
func claudeHookCommand(t *testing.T, file string) string {
	t.Helper()
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	pre := settings.Hooks["PreToolUse"]
	if len(pre) == 0 || len(pre[0].Hooks) == 0 {
		t.Fatalf("%s has no PreToolUse hook:\n%s", file, b)
	}
	h := pre[0].Hooks[0]
	if !slices.Equal(h.Args, []string{"hook", "claude-code"}) {
		t.Errorf("%s: hook args %q, want the exec form's [hook claude-code]", file, h.Args)
	}
	return h.Command
}

// windowsPath is a Linux path as Wine shows it to a Windows program: on
// drive Z:, which a new Wine prefix maps to /.
func windowsPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }
