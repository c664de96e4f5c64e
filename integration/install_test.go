package integration_test

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestInstallUninstallExactBytes: through the CLI, each agent's settings
// file in the user's own layout comes back byte for byte after install
// and uninstall (install keeps its record of the original in
// $XDG_STATE_HOME).
func TestInstallUninstallExactBytes(t *testing.T) {
	r := newRepo(t, nil)
	env := append(append([]string(nil), r.env...), "HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "LEASEGATE_CODEX=no-codex-here")
	orig := "{\n    \"model\": \"opus\",\n    \"hooks\": {}\n}"
	files := map[string]string{"claude-code": ".claude/settings.local.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json", "cursor": ".cursor/hooks.json"}
	for agent, file := range files {
		r.write(file, orig)
		for _, verb := range []string{"install", "uninstall"} {
			cmd := exec.Command(bin, verb, agent)
			cmd.Dir, cmd.Env = r.dir, env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s %s: %v\n%s", verb, agent, err, out)
			}
			if verb == "install" && r.read(file) == orig {
				t.Fatalf("install %s changed nothing in %s", agent, filepath.Join(r.dir, file))
			}
		}
		if got := r.read(file); got != orig {
			t.Errorf("%s: uninstall left %q, want the original %q", agent, got, orig)
		}
	}
}
