package hooks_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/leasegate/leasegate/hooks"
)

// mcpFixtures are MCP configurations with a server of the user's own,
// per file format.
var mcpFixtures = map[hooks.Agent]string{
	hooks.ClaudeCode: "{\n    \"mcpServers\": {\n        \"github\": {\"command\": \"gh-mcp\", \"args\": [\"serve\"]}\n    }\n}\n",
	hooks.Gemini:     "{\n\t\"theme\": \"dark\",\n\t\"mcpServers\": {\"fs\": {\"command\": \"fs-mcp\"}}\n}",
	hooks.Cursor:     `{"mcpServers":{"db":{"command":"db-mcp","env":{"A":"1"}}}}`,
	hooks.Codex:      "model = \"o4\"\n\n[mcp_servers.github]\ncommand = \"gh-mcp\"\nargs = [\"serve\"]\n",
}

// TestInstallMCPRoundTrip: for each agent, install registers `leasegate
// mcp` beside the user's own servers, a second install changes nothing,
// and uninstall gives back the exact bytes; with the install record gone
// (the file was edited since, say), uninstall still removes exactly the
// entry and keeps the user's servers.
func TestInstallMCPRoundTrip(t *testing.T) {
	for _, a := range hooks.Agents() {
		for _, record := range []bool{true, false} {
			t.Run(string(a)+map[bool]string{true: "", false: "/no record"}[record], func(t *testing.T) {
				t.Setenv("XDG_STATE_HOME", t.TempDir())
				orig := mcpFixtures[a]
				path := hooks.MCPPath(a, t.TempDir(), false)
				writeFile(t, path, orig, 0o640)
				if _, err := hooks.InstallMCP(a, path, exe); err != nil {
					t.Fatal(err)
				}
				got := readFile(t, path)
				if !keepsText(orig, got) || !strings.Contains(got, exe) || !servesMCP(t, a, got) {
					t.Fatalf("install:\n--- before\n%s\n--- after\n%s", orig, got)
				}
				if again, err := hooks.InstallMCP(a, path, exe); err != nil || !strings.Contains(again[0], "already registered") || readFile(t, path) != got {
					t.Errorf("a second install = %q, %v; want no change", again, err)
				}
				if !record {
					os.RemoveAll(os.Getenv("XDG_STATE_HOME"))
				}
				if _, err := hooks.UninstallMCP(a, path); err != nil {
					t.Fatal(err)
				}
				if back := readFile(t, path); back != orig && (record || !sameDoc(t, a, back, orig)) {
					t.Errorf("uninstall:\n--- want %q\n--- got  %q", orig, back)
				}
			})
		}
	}
}

// TestInstallMCPKeepsForeignServer: a server already named leasegate that
// runs something else is not replaced, and install says so.
func TestInstallMCPKeepsForeignServer(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	path := hooks.MCPPath(hooks.ClaudeCode, t.TempDir(), false)
	orig := `{"mcpServers":{"leasegate":{"command":"npx","args":["some-other-leasegate"]}}}`
	writeFile(t, path, orig, 0o644)
	if _, err := hooks.InstallMCP(hooks.ClaudeCode, path, exe); err == nil || !strings.Contains(err.Error(), "not touching it") {
		t.Errorf("install over a foreign server = %v, want a refusal", err)
	}
	if got := readFile(t, path); got != orig {
		t.Errorf("file changed: %s", got)
	}
}

// TestInstallMCPCreatesFile: with no file, install creates it and
// uninstall removes it.
func TestInstallMCPCreatesFile(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, a := range hooks.Agents() {
		path := hooks.MCPPath(a, t.TempDir(), false)
		if _, err := hooks.InstallMCP(a, path, exe); err != nil {
			t.Fatal(err)
		}
		if !servesMCP(t, a, readFile(t, path)) {
			t.Errorf("%s: %s", a, readFile(t, path))
		}
		if _, err := hooks.UninstallMCP(a, path); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: %s left after uninstall: %v", a, path, err)
		}
	}
}

// servesMCP reports whether an agent's MCP configuration text registers
// exe mcp as "leasegate", read as the agent reads it.
func servesMCP(t *testing.T, a hooks.Agent, text string) bool {
	t.Helper()
	var doc struct {
		Servers map[string]struct {
			Command string   `json:"command" toml:"command"`
			Args    []string `json:"args" toml:"args"`
		} `json:"mcpServers" toml:"mcp_servers"`
	}
	decode(t, a, text, &doc)
	s := doc.Servers["leasegate"]
	return s.Command == exe && len(s.Args) == 1 && s.Args[0] == "mcp"
}

func decode(t *testing.T, a hooks.Agent, text string, v any) {
	t.Helper()
	var err error
	if a == hooks.Codex {
		_, err = toml.Decode(text, v)
	} else {
		err = jsonUnmarshalString(text, v)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", a, err, text)
	}
}

// sameDoc reports whether two configurations say the same.
func sameDoc(t *testing.T, a hooks.Agent, x, y string) bool {
	var dx, dy map[string]any
	decode(t, a, x, &dx)
	decode(t, a, y, &dy)
	return strings.TrimSpace(fmtAny(dx)) == strings.TrimSpace(fmtAny(dy))
}

func jsonUnmarshalString(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func fmtAny(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestUserFilesFollowCodexHome: with CODEX_HOME set, a user-wide install
// edits Codex's hooks.json and config.toml there, where Codex reads them;
// the other agents' user files stay under the home directory.
func TestUserFilesFollowCodexHome(t *testing.T) {
	home, codexHome := t.TempDir(), t.TempDir()
	t.Setenv("CODEX_HOME", codexHome)
	if got, want := hooks.UserSettingsPath(hooks.Codex, home), filepath.Join(codexHome, "hooks.json"); got != want {
		t.Errorf("UserSettingsPath(codex) = %s, want %s", got, want)
	}
	if got, want := hooks.MCPPath(hooks.Codex, home, true), filepath.Join(codexHome, "config.toml"); got != want {
		t.Errorf("MCPPath(codex, user) = %s, want %s", got, want)
	}
	if got, want := hooks.UserSettingsPath(hooks.ClaudeCode, home), hooks.SettingsPath(hooks.ClaudeCode, home); got != want {
		t.Errorf("UserSettingsPath(claude-code) = %s, want %s", got, want)
	}
	t.Setenv("CODEX_HOME", "")
	if got, want := hooks.UserSettingsPath(hooks.Codex, home), filepath.Join(home, ".codex", "hooks.json"); got != want {
		t.Errorf("UserSettingsPath(codex) without CODEX_HOME = %s, want %s", got, want)
	}
}

// TestUserFilesFollowGeminiHome: with GEMINI_CLI_HOME set, Gemini CLI
// reads the user's .gemini/settings.json under it, and a user-wide
// install edits that file for the hooks and the MCP server alike.
func TestUserFilesFollowGeminiHome(t *testing.T) {
	home, geminiHome := t.TempDir(), t.TempDir()
	t.Setenv("GEMINI_CLI_HOME", geminiHome)
	want := filepath.Join(geminiHome, ".gemini", "settings.json")
	if got := hooks.UserSettingsPath(hooks.Gemini, home); got != want {
		t.Errorf("UserSettingsPath(gemini) = %s, want %s", got, want)
	}
	if got := hooks.MCPPath(hooks.Gemini, home, true); got != want {
		t.Errorf("MCPPath(gemini, user) = %s, want %s", got, want)
	}
	if got, want := hooks.MCPPath(hooks.Gemini, home, false), filepath.Join(home, ".gemini", "settings.json"); got != want {
		t.Errorf("MCPPath(gemini, project) = %s, want %s", got, want)
	}
}
