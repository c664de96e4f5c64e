package integration_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexUserInstallFollowsCodexHome: with CODEX_HOME set elsewhere
// than ~/.codex, `install codex --user` writes the hooks where the real
// Codex reads the user's hooks, beside the config.toml it registers the
// MCP server in; Codex then lists them and, trusted, runs them.
func TestCodexUserInstallFollowsCodexHome(t *testing.T) {
	codex := codexProgram(t)
	r := newRepo(t, nil)
	env := codexEnv(t, r, codex, newResponsesMock(t))
	var home, old string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
		if v, ok := strings.CutPrefix(kv, "CODEX_HOME="); ok {
			old = v
		}
	}
	codexHome := filepath.Join(t.TempDir(), "codex-home")
	if err := os.Rename(old, codexHome); err != nil {
		t.Fatal(err)
	}
	env = append(env, "CODEX_HOME="+codexHome)
	cmd := exec.Command(bin, "install", "codex", "--user", "--trust")
	cmd.Dir, cmd.Env = r.dir, env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "all 5 hooks: they run") {
		t.Fatalf("install codex --user --trust with CODEX_HOME=%s: %v, want Codex to run all 5 hooks:\n%s", codexHome, err, out)
	}
	if _, err := os.Stat(filepath.Join(codexHome, "hooks.json")); err != nil {
		t.Errorf("no hooks.json in CODEX_HOME: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".codex", "hooks.json")); err == nil {
		t.Errorf("install wrote ~/.codex/hooks.json, which Codex does not read with CODEX_HOME set")
	}
}
