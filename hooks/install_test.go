package hooks_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

const exe = "/opt/lease gate/bin/leasegate"

// userSettings is a Claude Code settings file as a user has it, laid out
// as Claude Code writes it.
const userSettings = `{
  "permissions": {
    "allow": [
      "Bash(go test:*)"
    ]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/check-bash.sh"
          }
        ]
      }
    ]
  },
  "model": "opus"
}
`

func writeFile(tb testing.TB, path, content string, mode os.FileMode) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		tb.Fatal(err)
	}
}

func readFile(tb testing.TB, path string) string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

func TestInstallClaudeCodeMergesAndUninstallRestores(t *testing.T) {
	path := hooks.SettingsPath(hooks.ClaudeCode, t.TempDir())
	writeFile(t, path, userSettings, 0o600)

	if _, err := hooks.Install(hooks.ClaudeCode, path, exe); err != nil {
		t.Fatalf("Install() error %v", err)
	}
	first := readFile(t, path)
	var got struct {
		Permissions map[string]any `json:"permissions"`
		Model       string         `json:"model"`
		Hooks       map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type      string   `json:"type"`
				Command   string   `json:"command"`
				Args      []string `json:"args"`
				Timeout   int      `json:"timeout"`
				OnFailure string   `json:"onFailure"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(first), &got); err != nil {
		t.Fatalf("installed settings are not JSON: %v\n%s", err, first)
	}
	if got.Model != "opus" || got.Permissions == nil {
		t.Errorf("Install() lost the user's settings:\n%s", first)
	}
	pre := got.Hooks["PreToolUse"]
	if len(pre) != 3 || pre[0].Hooks[0].Command != "~/bin/check-bash.sh" {
		t.Fatalf("PreToolUse after Install() = %+v, want the user's group first and two of leasegate's", pre)
	}
	gate := pre[1]
	if gate.Matcher != "Write|Edit|MultiEdit|NotebookEdit" || len(gate.Hooks) != 1 {
		t.Fatalf("gate group = %+v", gate)
	}
	h := gate.Hooks[0]
	if h.Type != "command" || h.Command != exe || !reflect.DeepEqual(h.Args, []string{"hook", "claude-code"}) || h.Timeout != 240 {
		t.Errorf("gate handler = %+v, want exec form of %q with args [hook claude-code] and timeout 240", h, exe)
	}
	// A PreToolUse hook that cannot run blocks the call, so a moved
	// binary does not let writes through (TestClaudeCodeMissingHookBlocks);
	// the other events' hooks gate nothing.
	if h, bash := pre[1].Hooks[0], pre[2].Hooks[0]; h.OnFailure != "block" || bash.OnFailure != "block" || got.Hooks["Stop"][0].Hooks[0].OnFailure != "" {
		t.Errorf("onFailure of the Write, Bash and Stop handlers = %q, %q, %q; want block, block and none", h.OnFailure, bash.OnFailure, got.Hooks["Stop"][0].Hooks[0].OnFailure)
	}
	for _, ev := range []string{"PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "SessionEnd"} {
		if len(got.Hooks[ev]) != 1 {
			t.Errorf("Install() wrote %d %s groups, want 1", len(got.Hooks[ev]), ev)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("Install() changed the mode to %v, want 0600", fi.Mode().Perm())
	}

	if _, err := hooks.Install(hooks.ClaudeCode, path, exe); err != nil {
		t.Fatalf("second Install() error %v", err)
	}
	if again := readFile(t, path); again != first {
		t.Errorf("second Install() changed the file:\n%s\nwant\n%s", again, first)
	}

	if _, err := hooks.Uninstall(hooks.ClaudeCode, path); err != nil {
		t.Fatalf("Uninstall() error %v", err)
	}
	if after := readFile(t, path); after != userSettings {
		t.Errorf("Uninstall() left\n%s\nwant the original\n%s", after, userSettings)
	}
}

func TestInstallUpdatesMovedBinary(t *testing.T) {
	path := hooks.SettingsPath(hooks.ClaudeCode, t.TempDir())
	if _, err := hooks.Install(hooks.ClaudeCode, path, "/old/leasegate"); err != nil {
		t.Fatal(err)
	}
	did, err := hooks.Install(hooks.ClaudeCode, path, exe)
	if err != nil {
		t.Fatal(err)
	}
	if len(did) != 7 || !strings.HasPrefix(did[0], "updated ") {
		t.Errorf("Install() with a moved binary = %q, want 7 updates", did)
	}
	if s := readFile(t, path); strings.Contains(s, "/old/leasegate") || strings.Count(s, exe) != 7 {
		t.Errorf("settings after the update:\n%s", s)
	}
}

func TestUninstallKeepsUserHandlersInSharedGroup(t *testing.T) {
	path := hooks.SettingsPath(hooks.Codex, t.TempDir())
	shared := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"},{"type":"command","command":"'/x/leasegate' hook codex","timeout":240}]}]}}`
	writeFile(t, path, shared, 0o644)
	if _, err := hooks.Uninstall(hooks.Codex, path); err != nil {
		t.Fatal(err)
	}
	want := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}` // the user's layout kept
	if got := readFile(t, path); got != want {
		t.Errorf("Uninstall() left\n%s\nwant\n%s", got, want)
	}
}

func TestInstallOtherAgents(t *testing.T) {
	tests := []struct {
		agent hooks.Agent
		file  string
		want  []string // fragments of the written file
	}{
		{hooks.Codex, ".codex/hooks.json", []string{
			`"matcher": "^apply_patch$"`, `"command": "'/opt/lease gate/bin/leasegate' hook codex"`, `"timeout": 240`, `"UserPromptSubmit"`, `"Stop"`}},
		{hooks.Gemini, ".gemini/settings.json", []string{
			`"BeforeTool"`, `"matcher": "write_file|replace"`, `"command": "'/opt/lease gate/bin/leasegate' hook gemini"`, `"timeout": 240000`, `"AfterAgent"`}},
		{hooks.Cursor, ".cursor/hooks.json", []string{
			"{\n  \"version\": 1,", `"preToolUse"`, `"command": "'/opt/lease gate/bin/leasegate' hook cursor"`, `"matcher": "Write|StrReplace|Delete"`,
			`"failClosed": true`, `"beforeSubmitPrompt"`}},
	}
	for _, tt := range tests {
		t.Run(string(tt.agent), func(t *testing.T) {
			base := t.TempDir()
			path := hooks.SettingsPath(tt.agent, base)
			if path != filepath.Join(base, tt.file) {
				t.Errorf("SettingsPath(%s) = %s, want %s", tt.agent, path, filepath.Join(base, tt.file))
			}
			if _, err := hooks.Install(tt.agent, path, exe); err != nil {
				t.Fatal(err)
			}
			got := readFile(t, path)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Install(%s) wrote\n%s\nlacking %s", tt.agent, got, w)
				}
			}
			if _, err := hooks.Install(tt.agent, path, exe); err != nil || readFile(t, path) != got {
				t.Errorf("second Install(%s) changed the file or failed: %v", tt.agent, err)
			}
			if _, err := hooks.Uninstall(tt.agent, path); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("Uninstall(%s) kept the file it created: %v", tt.agent, err)
			}
		})
	}
}

func TestInstallRefusesBrokenSettings(t *testing.T) {
	path := hooks.SettingsPath(hooks.ClaudeCode, t.TempDir())
	writeFile(t, path, `{"hooks": [}`, 0o644)
	if _, err := hooks.Install(hooks.ClaudeCode, path, exe); err == nil {
		t.Fatal("Install() over broken JSON succeeded, want an error")
	}
	if got := readFile(t, path); got != `{"hooks": [}` {
		t.Errorf("Install() touched a broken file: %q", got)
	}
}

// TestInstallRefusesReadOnlySettings: a settings or MCP file its owner
// may not write is refused by install and uninstall, naming the file and
// its mode, and left as it was; once made writable again, uninstall
// still gives back its bytes before install. (Replacing the file by a
// rename would succeed whatever its mode.)
func TestInstallRefusesReadOnlySettings(t *testing.T) {
	for _, a := range hooks.Agents() {
		t.Run(string(a), func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			base := t.TempDir()
			settings, mcp := hooks.SettingsPath(a, base), hooks.MCPPath(a, base, false)
			if a == hooks.Gemini {
				mcp = "" // the hooks' own file, checked below
			}
			orig := "{\"theme\": \"dark\"}\n"
			writeFile(t, settings, orig, 0o444)
			if _, err := hooks.Install(a, settings, exe); err == nil || !strings.Contains(err.Error(), "read-only (mode 0444)") {
				t.Errorf("Install over a read-only file = %v, want it refused as read-only", err)
			}
			if got := readFile(t, settings); got != orig {
				t.Errorf("Install changed a read-only file: %q", got)
			}
			if mcp != "" {
				text := mcpFixtures[a]
				writeFile(t, mcp, text, 0o400)
				if _, err := hooks.InstallMCP(a, mcp, exe); err == nil || !strings.Contains(err.Error(), "read-only (mode 0400)") {
					t.Errorf("InstallMCP over a read-only file = %v, want it refused as read-only", err)
				}
				if got := readFile(t, mcp); got != text {
					t.Errorf("InstallMCP changed a read-only file: %q", got)
				}
			}
			if err := os.Chmod(settings, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := hooks.Install(a, settings, exe); err != nil {
				t.Fatal(err)
			}
			installed := readFile(t, settings)
			if err := os.Chmod(settings, 0o444); err != nil {
				t.Fatal(err)
			}
			if _, err := hooks.Uninstall(a, settings); err == nil || !strings.Contains(err.Error(), "read-only") {
				t.Errorf("Uninstall of a read-only file = %v, want it refused as read-only", err)
			}
			if got := readFile(t, settings); got != installed {
				t.Errorf("Uninstall changed a read-only file: %q", got)
			}
			if err := os.Chmod(settings, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := hooks.Uninstall(a, settings); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, settings); got != orig {
				t.Errorf("Uninstall after the refusal = %q, want the bytes before install %q", got, orig)
			}
		})
	}
}

// TestInstallKeepsSymlinkedSettings: a settings or MCP file that is a
// link into the user's dotfiles stays a link through install and
// uninstall; the file it names gets leasegate's entries and then its
// bytes back.
func TestInstallKeepsSymlinkedSettings(t *testing.T) {
	for _, a := range hooks.Agents() {
		t.Run(string(a), func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			base, dotfiles := t.TempDir(), t.TempDir()
			link := func(path, text string) string {
				target := filepath.Join(dotfiles, filepath.Base(path))
				writeFile(t, target, text, 0o644)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, path); err != nil {
					t.Fatal(err)
				}
				return target
			}
			settings := hooks.SettingsPath(a, base)
			orig := "{\"theme\": \"dark\"}\n"
			target := link(settings, orig)
			mcp := hooks.MCPPath(a, base, false)
			var mcpTarget string
			if mcp != settings {
				mcpTarget = link(mcp, mcpFixtures[a])
			}
			if _, err := hooks.Install(a, settings, exe); err != nil {
				t.Fatal(err)
			}
			if _, err := hooks.InstallMCP(a, mcp, exe); err != nil {
				t.Fatal(err)
			}
			for path, target := range map[string]string{settings: target, mcp: mcpTarget} {
				if target == "" {
					continue
				}
				if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
					t.Fatalf("install replaced the link %s by a file (%v)", path, err)
				}
				if got := readFile(t, target); !strings.Contains(got, exe) {
					t.Errorf("the linked file %s lacks leasegate's entries:\n%s", target, got)
				}
			}
			if _, err := hooks.UninstallMCP(a, mcp); err != nil {
				t.Fatal(err)
			}
			if _, err := hooks.Uninstall(a, settings); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(settings); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Fatalf("uninstall replaced the link %s by a file (%v)", settings, err)
			}
			if got := readFile(t, target); got != orig {
				t.Errorf("after uninstall the linked file = %q, want %q", got, orig)
			}
			if mcpTarget != "" && readFile(t, mcpTarget) != mcpFixtures[a] {
				t.Errorf("after uninstall the linked MCP file = %q, want %q", readFile(t, mcpTarget), mcpFixtures[a])
			}
		})
	}
}
