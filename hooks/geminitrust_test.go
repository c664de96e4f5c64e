package hooks_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

// TestGeminiProblems: what keeps Gemini CLI from running installed hooks,
// read as Gemini CLI reads it: the trust rule of trustedFolders.json that
// covers the project (the longest; TRUST_PARENT trusts the rule's
// parent), folder trust turned off, the environment, and hooks turned
// off or the command listed as disabled in a settings file.
func TestGeminiProblems(t *testing.T) {
	for _, tt := range []struct {
		name   string
		rules  string // trustedFolders.json, with %[1]s the project and %[2]s its parent
		user   string // the user's settings.json
		system string // the system's settings.json
		env    string // NAME=value
		want   string // in the one problem, "" for none
	}{
		{name: "no rule", want: "has not been told to trust"},
		{name: "trusted", rules: `{%[1]q: "TRUST_FOLDER"}`},
		{name: "a trusted parent", rules: `{%[2]q: "TRUST_FOLDER"}`},
		{name: "a trusted sibling", rules: `{"%[2]s/other": "TRUST_FOLDER"}`, want: "has not been told to trust"},
		{name: "trust parent of a sibling", rules: `{"%[2]s/other": "TRUST_PARENT"}`},
		{name: "trust parent", rules: `{%[1]q: "TRUST_PARENT"}`},
		{name: "the longest rule decides", rules: `{%[2]q: "TRUST_FOLDER", %[1]q: "DO_NOT_TRUST"}`, want: "DO_NOT_TRUST"},
		{name: "folder trust off", user: `{"security": {"folderTrust": {"enabled": false}}}`},
		{name: "the system turns folder trust back on", user: `{"security": {"folderTrust": {"enabled": false}}}`,
			system: `{"security": {"folderTrust": {"enabled": true}}}`, want: "has not been told to trust"},
		{name: "trusted by the environment", env: "GEMINI_CLI_TRUST_WORKSPACE=true"},
		{name: "restricted by the environment", rules: `{%[1]q: "TRUST_FOLDER"}`, env: "GEMINI_RESTRICTED_MODE=true", want: "GEMINI_RESTRICTED_MODE"},
		{name: "hooks off", rules: `{%[1]q: "TRUST_FOLDER"}`, user: `{"hooksConfig": {"enabled": false}}`, want: "sets hooksConfig.enabled to false"},
		{name: "hooks off, on again by the system", rules: `{%[1]q: "TRUST_FOLDER"}`, user: `{"hooksConfig": {"enabled": false}}`, system: `{"hooksConfig": {"enabled": true}}`},
		{name: "leasegate's hook disabled", rules: `{%[1]q: "TRUST_FOLDER"}`, user: `{"hooksConfig": {"disabled": ["/opt/lg/leasegate hook gemini"]}}`, want: "hooksConfig.disabled"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			parent, home, etc := t.TempDir(), t.TempDir(), t.TempDir()
			root := filepath.Join(parent, "project")
			for _, name := range []string{"GEMINI_CLI_HOME", "GEMINI_CLI_TRUSTED_FOLDERS_PATH", "GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_RESTRICTED_MODE", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"} {
				t.Setenv(name, "")
			}
			t.Setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", filepath.Join(etc, "settings.json"))
			if name, val, ok := strings.Cut(tt.env, "="); ok {
				t.Setenv(name, val)
			}
			file := hooks.SettingsPath(hooks.Gemini, root)
			if _, err := hooks.Install(hooks.Gemini, file, "/opt/lg/leasegate"); err != nil {
				t.Fatal(err)
			}
			if tt.rules != "" {
				writeFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), fmt.Sprintf(tt.rules, root, parent), 0o600)
			}
			if tt.user != "" {
				writeFile(t, hooks.SettingsPath(hooks.Gemini, home), tt.user, 0o600)
			}
			if tt.system != "" {
				writeFile(t, filepath.Join(etc, "settings.json"), tt.system, 0o600)
			}
			ps := hooks.GeminiProblems(root, file, home)
			switch {
			case tt.want == "" && len(ps) != 0:
				t.Errorf("GeminiProblems = %q, want none", ps)
			case tt.want != "" && (len(ps) != 1 || !strings.Contains(ps[0], tt.want)):
				t.Errorf("GeminiProblems = %q, want one saying %q", ps, tt.want)
			}
		})
	}
}

// TestGeminiShortTimeout: a BeforeTool hook of leasegate's whose timeout
// Gemini CLI reads as too short to wait out the retry (seconds written
// where it counts milliseconds, or none: 60000) is a problem; install's
// 240000 is not.
func TestGeminiShortTimeout(t *testing.T) {
	for _, tt := range []struct{ name, timeout, want string }{
		{"installed", `"timeout": 240000`, ""},
		{"seconds", `"timeout": 240`, "2 of leasegate's BeforeTool hooks may run only 240ms"},
		{"none", `"name": "leasegate"`, "may run only 1m0s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			t.Setenv("GEMINI_CLI_TRUST_WORKSPACE", "true")
			root := t.TempDir()
			file := hooks.SettingsPath(hooks.Gemini, root)
			if _, err := hooks.Install(hooks.Gemini, file, "/opt/lg/leasegate"); err != nil {
				t.Fatal(err)
			}
			writeFile(t, file, strings.ReplaceAll(readFile(t, file), `"timeout": 240000`, tt.timeout), 0o644)
			ps := hooks.GeminiProblems(root, file, t.TempDir())
			switch {
			case tt.want == "" && len(ps) != 0:
				t.Errorf("GeminiProblems = %q, want none", ps)
			case tt.want != "" && (len(ps) != 1 || !strings.Contains(ps[0], tt.want)):
				t.Errorf("GeminiProblems = %q, want one saying %q", ps, tt.want)
			}
		})
	}
}
