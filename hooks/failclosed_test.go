//go:build !windows

package hooks

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFailClosedLine runs the line install writes for Codex's and Gemini
// CLI's gating hooks, in the shells those agents run it with (Codex: the
// user's $SHELL with -lc; Gemini CLI: bash -c), over a stand-in for
// leasegate at a path holding a space, quotes and a backslash. leasegate's
// answers pass through as they are (stdin in, stdout and stderr out, exit
// 0 or 2); every other end blocks with exit 2 and a reason on stderr:
// another status (leasegate's own message kept), a kill by a signal, a
// binary that is missing or cannot be executed.
func TestFailClosedLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), `a b "c" it's \x`)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "leasegate")
	line := failClosedLine(Codex, exe)
	for _, tt := range []struct {
		name   string
		script string // the stand-in's body; "" for no binary at all
		mode   os.FileMode
		code   int
		stdout string
		stderr []string
	}{
		{"answer", `cat; echo '{"ok":true}'`, 0o755, 0, `{"in":1}` + "\n" + `{"ok":true}` + "\n", nil},
		{"args", `echo "$1 $2"`, 0o755, 0, "hook codex\n", nil},
		{"deny", `echo '{"deny":1}'; echo 'held by alice' >&2; exit 2`, 0o755, 2, `{"deny":1}` + "\n", []string{"held by alice"}},
		{"own error", `echo 'cannot reach the coordinator' >&2; exit 1`, 0o755, 2, "",
			[]string{"cannot reach the coordinator", "leasegate hook could not run: " + exe + " ended with status 1", "leasegate doctor"}},
		{"killed", `kill -9 $$`, 0o755, 2, "", []string{"leasegate hook could not run: " + exe + " was killed by signal 9", "the call is blocked"}},
		{"missing", "", 0, 2, "", []string{"leasegate hook could not run: " + exe + ": not found", "run leasegate install codex again"}},
		{"not executable", `exit 0`, 0o644, 2, "", []string{exe + " cannot be executed", "run leasegate install codex again"}},
	} {
		_ = os.Remove(exe)
		if tt.script != "" {
			if err := os.WriteFile(exe, []byte("#!/bin/sh\n"+tt.script+"\n"), tt.mode); err != nil {
				t.Fatal(err)
			}
		}
		for _, shell := range [][]string{{"bash", "-c"}, {"dash", "-lc"}, {"sh", "-lc"}} {
			if _, err := exec.LookPath(shell[0]); err != nil {
				continue
			}
			code, stdout, stderr := runLine(t, shell, line, `{"in":1}`+"\n")
			if code != tt.code || stdout != tt.stdout {
				t.Errorf("%s, %s: exit %d, stdout %q; want exit %d, stdout %q (stderr %q)", tt.name, shell[0], code, stdout, tt.code, tt.stdout, stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("%s, %s: stderr %q lacks %q", tt.name, shell[0], stderr, want)
				}
			}
			if tt.stderr == nil && strings.Contains(stderr, "could not run") {
				t.Errorf("%s, %s: an answer of leasegate's said %q", tt.name, shell[0], stderr)
			}
		}
	}
}

func runLine(t *testing.T, shell []string, line, stdin string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(shell[0], append(shell[1:], line)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", shell[0], err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestFailClosedLineReadsBack: the fail-closed line is known as
// leasegate's hook for its agent (so install updates it in place and
// uninstall removes it) and as the form that fails closed; the bare line
// an older install wrote is known as leasegate's too, and as failing open.
func TestFailClosedLineReadsBack(t *testing.T) {
	for _, exe := range []string{"/usr/local/bin/leasegate", `/a b/it's "x" \y/leasegate`, "leasegate"} {
		line := failClosedLine(Gemini, exe)
		prog, args, ok := failClosedWords(shellWords(line))
		if !ok || prog != exe || !slices.Equal(args, []string{"hook", "gemini"}) {
			t.Errorf("%s reads back as %q %q (%v)", line, prog, args, ok)
		}
		if !isOursCommand(Gemini, line, nil) || isOursCommand(Codex, line, nil) || failsOpen(line) {
			t.Errorf("%s: ours for gemini %v, for codex %v, fails open %v; want true, false, false",
				line, isOursCommand(Gemini, line, nil), isOursCommand(Codex, line, nil), failsOpen(line))
		}
		old, _ := hookCommand(Gemini, exe)
		if !isOursCommand(Gemini, old, nil) || !failsOpen(old) {
			t.Errorf("%s: ours %v, fails open %v; want both", old, isOursCommand(Gemini, old, nil), failsOpen(old))
		}
	}
}
