package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

// hookFailure is one way an installed hook's leasegate ends without an
// answer, and what the agent is told of it.
type hookFailure struct {
	name string
	// apply makes the leasegate at path fail so.
	apply func(path string) error
	says  string
}

// hookFailures: the binary moved away (as a `go install` to another
// GOPATH, or an upgrade that removes the old path, leaves it), and a
// leasegate killed by a signal while it answers (as the OOM killer would):
// a script standing in at the installed path reads the call and kills
// itself.
var hookFailures = []hookFailure{
	{"moved", func(path string) error { return os.Rename(path, path+".moved") }, ": not found"},
	{"killed", func(path string) error {
		_ = os.Remove(path)
		return os.WriteFile(path, []byte("#!/bin/sh\ncat > /dev/null\nkill -9 $$\n"), 0o755)
	}, "was killed by signal 9"},
}

// movableLeasegate is a copy of the leasegate under test in a directory
// of its own, whose name holds a space and a quote, for a test to install
// hooks from and then make fail.
func movableLeasegate(t *testing.T) string {
	t.Helper()
	return copyLeasegate(t, filepath.Join(t.TempDir(), "lease gate's bin"))
}

// copyLeasegate copies the leasegate under test to dir/leasegate, making
// dir, and returns its path.
func copyLeasegate(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "leasegate")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestCodexMissingHookBlocks drives the real Codex CLI through a mock
// model: with leasegate's hooks installed and trusted, a leasegate that
// was moved away, or that is killed by a signal while it answers, blocks
// Codex's apply_patch of a free file instead of letting it through
// ungated, and the model is told why.
func TestCodexMissingHookBlocks(t *testing.T) {
	codex := codexProgram(t)
	for _, f := range hookFailures {
		t.Run(f.name, func(t *testing.T) {
			r := newRepo(t, map[string]string{"f.txt": "old\n"})
			m := newResponsesMock(t)
			env := codexEnv(t, r, codex, m)
			exe := movableLeasegate(t)
			if out, code := lgProgram(t, exe, r.dir, env, "install", "codex", "--trust"); code != 0 || !strings.Contains(out, "all 5 hooks: they run") {
				t.Fatalf("install codex --trust: exit %d:\n%s", code, out)
			}
			if err := f.apply(exe); err != nil {
				t.Fatal(err)
			}
			log := runCodex(t, r, codex, env)
			if got := r.read("f.txt"); got != "old\n" {
				t.Fatalf("f.txt = %q: Codex wrote it though its leasegate hook could not answer\ncodex:\n%s", got, log)
			}
			outs := m.toolOutputs()
			if len(outs) == 0 || !strings.Contains(outs[len(outs)-1], "leasegate hook could not run") || !strings.Contains(outs[len(outs)-1], f.says) {
				t.Errorf("Codex did not tell the model that the hook could not run (%s); tool outputs: %q\ncodex:\n%s", f.says, outs, log)
			}
		})
	}
}

// TestGeminiMissingHookBlocks drives the real Gemini CLI through a mock
// model: a leasegate that is moved away in the session, or that is killed
// by a signal while it answers, blocks Gemini's write_file of a free file
// instead of letting it through, and the model is told why. The failure
// starts as the model asks for the write, after the prompt's hook ran
// (Gemini CLI refuses the whole prompt when that one cannot be run at
// all, exit 127, but not when it is killed).
func TestGeminiMissingHookBlocks(t *testing.T) {
	for _, f := range hookFailures {
		t.Run(f.name, func(t *testing.T) {
			r := newRepo(t, nil)
			m := newGenerateMock(t, toolCall{"write_file", `{"file_path":"` + filepath.Join(r.dir, "free.txt") + `","content":"new\n"}`})
			g := newGeminiRun(t, r, m)
			exe := movableLeasegate(t)
			if out, code := lgProgram(t, exe, r.dir, g.env, "install", "gemini"); code != 0 {
				t.Fatalf("install gemini: exit %d\n%s", code, out)
			}
			var applied error
			m.mu.Lock()
			m.onCall = func() { applied, m.onCall = f.apply(exe), nil }
			m.mu.Unlock()
			_, log := g.run(t, "write free.txt")
			m.mu.Lock()
			err := applied
			m.mu.Unlock()
			if err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(filepath.Join(r.dir, "free.txt")); err == nil {
				t.Fatalf("free.txt = %q: Gemini CLI wrote it though its leasegate hook could not answer\n%s", got, log)
			}
			_, results := m.seen()
			if len(results) == 0 || !strings.Contains(results[0], "leasegate hook could not run") || !strings.Contains(results[0], f.says) {
				t.Errorf("Gemini CLI did not tell the model that the hook could not run (%s); results %q\n%s", f.says, results, log)
			}
		})
	}
}

// TestCodexUpgradeToFailClosed: over the Codex hooks an older install
// wrote (leasegate alone on the line) and the user trusted, doctor says
// that they fail open; install replaces the two gating ones in place (5
// hooks still, no duplicates), and the real Codex then reports those two
// modified, so untrusted, which install and doctor say; `install codex
// --trust` trusts them again and doctor finds nothing left.
func TestCodexUpgradeToFailClosed(t *testing.T) {
	codex := codexProgram(t)
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	m := newResponsesMock(t)
	env := codexEnv(t, r, codex, m)
	lg := lgFunc(t, r.dir, env)
	if out, code := lg("install", "codex"); code != 0 {
		t.Fatalf("install codex: exit %d\n%s", code, out)
	}
	file := filepath.Join(r.dir, ".codex", "hooks.json")
	r.write(".codex/hooks.json", olderCodexHooks(t, r.read(".codex/hooks.json")))
	// The older install, trusted through Codex as its install --trust did.
	for _, kv := range [][2]string{{"HOME", envValue(env, "HOME")}, {"CODEX_HOME", envValue(env, "CODEX_HOME")}} {
		t.Setenv(kv[0], kv[1])
	}
	if _, tr, err := hooks.TrustCodex(context.Background(), codex, r.dir, file); err != nil || tr.Problem(5) != "" {
		t.Fatalf("trusting the older hooks: %v, %q", err, tr.Problem(5))
	}
	out, code := lg("doctor")
	if code != 1 || !strings.Contains(out, "2 of leasegate's PreToolUse hooks run leasegate alone") || !strings.Contains(out, "install codex --trust") {
		t.Fatalf("doctor over the older hooks: exit %d, want 1 saying 2 PreToolUse hooks fail open:\n%s", code, out)
	}

	out, code = lg("install", "codex")
	if code != 0 || strings.Count(out, "updated codex hook PreToolUse") != 2 || !strings.Contains(out, "NOT ACTIVE YET") || strings.Count(out, "(modified)") != 2 {
		t.Fatalf("install codex over the older hooks: exit %d, want 2 updated and both said modified:\n%s", code, out)
	}
	if n := strings.Count(r.read(".codex/hooks.json"), `"timeout"`); n != 5 {
		t.Errorf("%d hooks in .codex/hooks.json after installing over the older ones, want 5:\n%s", n, r.read(".codex/hooks.json"))
	}
	if out, code = lg("doctor"); code != 1 || !strings.Contains(out, "Codex skips 2 of leasegate's hooks") {
		t.Fatalf("doctor after the update: exit %d, want 1 saying Codex skips the 2 changed hooks:\n%s", code, out)
	}
	out, code = lg("install", "codex", "--trust")
	if code != 0 || strings.Count(out, "(it was modified)") != 2 || !strings.Contains(out, "all 5 hooks: they run") {
		t.Fatalf("install codex --trust after the update: exit %d, want the 2 changed hooks trusted:\n%s", code, out)
	}
	if out, code = lg("doctor"); code != 0 || !strings.Contains(out, "codex: ok") {
		t.Fatalf("doctor after trusting the update: exit %d, want codex ok:\n%s", code, out)
	}
}

// olderCodexHooks is a Codex hooks file as an install before the
// fail-closed line wrote it: every handler runs `PATH hook codex` alone.
func olderCodexHooks(t *testing.T, text string) string {
	t.Helper()
	var doc map[string]map[string][]struct {
		Matcher string           `json:"matcher,omitempty"`
		Hooks   []map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	for _, groups := range doc["hooks"] {
		for _, g := range groups {
			for _, h := range g.Hooks {
				h["command"] = bin + " hook codex"
			}
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out) + "\n"
}

// TestInstallNamesPathLink: a leasegate that PATH reaches through a link
// (as a package manager's bin/leasegate names its versioned binary) is
// written into the hooks by the link's path, not by the versioned one it
// resolves to: after an upgrade that replaces the versioned binary and
// removes the old one, the installed hooks still run.
func TestInstallNamesPathLink(t *testing.T) {
	r := newRepo(t, nil)
	prefix := t.TempDir()
	version := func(v string) string { return copyLeasegate(t, filepath.Join(prefix, "Cellar", "leasegate", v, "bin")) }
	link := filepath.Join(prefix, "bin", "leasegate")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(version("1.0"), link); err != nil {
		t.Fatal(err)
	}
	env := append(append([]string(nil), r.env...), "PATH="+filepath.Dir(link)+string(os.PathListSeparator)+envValue(r.env, "PATH"))
	if out, code := lgProgram(t, link, r.dir, env, "install", "claude-code", "--no-mcp"); code != 0 {
		t.Fatalf("install claude-code: exit %d\n%s", code, out)
	}
	settings := r.read(".claude/settings.local.json")
	if !strings.Contains(settings, fmt.Sprintf(`"command": %q`, link)) || strings.Contains(settings, "Cellar") {
		t.Fatalf("the hooks do not name PATH's link %s:\n%s", link, settings)
	}

	// The upgrade: a new versioned binary, the link moved to it, the old
	// one removed.
	next := version("1.1")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(next, link); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(prefix, "Cellar", "leasegate", "1.0")); err != nil {
		t.Fatal(err)
	}
	out, _ := lgProgram(t, link, r.dir, env, "doctor")
	if !strings.Contains(out, "claude-code: ok") {
		t.Fatalf("doctor after the upgrade: want claude-code ok (its hooks still run):\n%s", out)
	}
}
