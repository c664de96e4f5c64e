package hooks_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

// TestInstallSaysGatingFailsOpen: on Windows, where Codex's and Gemini
// CLI's shells get no fail-closed line, install says that their gating
// hooks let a write through when leasegate cannot run; Claude Code's and
// Cursor's, which fail closed by a setting, get no such note.
func TestInstallSaysGatingFailsOpen(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for a, want := range map[hooks.Agent]bool{hooks.Codex: true, hooks.Gemini: true, hooks.ClaudeCode: false, hooks.Cursor: false} {
		root := t.TempDir()
		did, err := hooks.Install(a, hooks.SettingsPath(a, root), filepath.Join(`C:\tools`, "leasegate.exe"))
		if err != nil {
			t.Fatal(err)
		}
		if said := strings.Contains(strings.Join(did, "\n"), "does not block a write"); said != want {
			t.Errorf("install %s says the gating hooks fail open: %v, want %v\n%s", a, said, want, strings.Join(did, "\n"))
		}
	}
}
