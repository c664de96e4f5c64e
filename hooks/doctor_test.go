package hooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

// TestDiagnoseClaudeHooksOff: doctor names the Claude Code settings file
// whose "disableAllHooks" turns every hook off, reading the user's, the
// project's and the local file in turn as Claude Code does, each
// overriding the ones before; any value but false or null turns them off.
func TestDiagnoseClaudeHooksOff(t *testing.T) {
	for _, tt := range []struct {
		name              string
		user, shared, loc string // each file's disableAllHooks, "" for none
		want              string // the file named, "" for none
	}{
		{"none", "", "", "", ""},
		{"shared", "", "true", "", "shared"},
		{"user", "true", "", "", "user"},
		{"local turns them back on", "true", "true", "false", ""},
		{"shared turns them back on", "true", "null", "", ""},
		{"local off", "", "false", "true", "local"},
		{"a string", "", `"yes"`, "", "shared"},
		{"the string false", "", `"false"`, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			root, home := t.TempDir(), t.TempDir()
			local, _ := hooks.LocalSettingsPath(hooks.ClaudeCode, root)
			files := map[string]string{"user": hooks.SettingsPath(hooks.ClaudeCode, home), "shared": hooks.SettingsPath(hooks.ClaudeCode, root), "local": local}
			for which, v := range map[string]string{"user": tt.user, "shared": tt.shared, "local": tt.loc} {
				if v != "" {
					writeFile(t, files[which], `{"disableAllHooks": `+v+`}`, 0o644)
				}
			}
			if _, err := hooks.Install(hooks.ClaudeCode, local, exe); err != nil {
				t.Fatal(err)
			}
			d := hooks.Diagnose(context.Background(), hooks.ClaudeCode, hooks.DoctorConfig{Root: root, File: local, Home: home})
			var said string
			for _, p := range d.Problems {
				if strings.Contains(p, "disableAllHooks") {
					said = p
				}
			}
			switch {
			case tt.want == "" && said != "":
				t.Errorf("doctor says %q, want nothing of disableAllHooks", said)
			case tt.want != "" && !strings.Contains(said, files[tt.want]):
				t.Errorf("doctor says %q, want it to name %s", said, filepath.Base(files[tt.want]))
			}
		})
	}
}

// TestDiagnoseOpenOnFailure: doctor finds leasegate's gating hooks an
// older install wrote without "onFailure": "block" (Claude Code),
// "failClosed": true (Cursor) or the fail-closed line (Codex, Gemini
// CLI), which let a write through when the hook cannot run, and says to
// install again; a fresh install has none.
func TestDiagnoseOpenOnFailure(t *testing.T) {
	oldLine := func(a hooks.Agent) (string, string) {
		gating, _ := hooks.GatingCommand(a, exe)
		plain, _ := hooks.HookCommand(a, exe)
		return `"command": ` + jsonString(gating), `"command": ` + jsonString(plain)
	}
	codexNew, codexOld := oldLine(hooks.Codex)
	geminiNew, geminiOld := oldLine(hooks.Gemini)
	for _, c := range []struct {
		agent       hooks.Agent
		member, old string
		n           int
	}{
		{hooks.ClaudeCode, `, "onFailure": "block"`, "", 2},
		{hooks.Cursor, `, "failClosed": true`, "", 1},
		{hooks.Codex, codexNew, codexOld, 2},
		{hooks.Gemini, geminiNew, geminiOld, 2},
	} {
		t.Run(string(c.agent), func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			root := t.TempDir()
			path := hooks.SettingsPath(c.agent, root)
			if _, err := hooks.Install(c.agent, path, exe); err != nil {
				t.Fatal(err)
			}
			says := func() string {
				d := hooks.Diagnose(context.Background(), c.agent, hooks.DoctorConfig{Root: root, File: path, Home: t.TempDir()})
				for _, p := range d.Problems {
					if strings.Contains(p, "an older install") {
						return p
					}
				}
				return ""
			}
			if p := says(); p != "" {
				t.Errorf("doctor after a fresh install says %q", p)
			}
			if c.member == c.old {
				t.Skip("install writes no other line here")
			}
			text := readFile(t, path)
			compact := strings.Join(strings.Fields(text), " ")
			if c.old != "" {
				compact = text
			}
			old := strings.ReplaceAll(compact, c.member, c.old)
			if old == compact {
				t.Fatalf("no %s in the installed file:\n%s", c.member, text)
			}
			writeFile(t, path, old, 0o644)
			if p := says(); !strings.HasPrefix(p, fmt.Sprint(c.n)+" of leasegate's") || !strings.Contains(p, "leasegate install "+string(c.agent)) {
				t.Errorf("doctor with the member taken out says %q, want %d hooks named and install again", p, c.n)
			}
			// Uninstall takes the older hooks out as it takes its own.
			if _, err := hooks.Uninstall(c.agent, path); err != nil || hooks.InstalledIn(c.agent, path) != 0 {
				t.Errorf("uninstall of the older hooks: %v, %d left", err, hooks.InstalledIn(c.agent, path))
			}
			writeFile(t, path, old, 0o644)
			// Install again updates those hooks where they are.
			did, err := hooks.Install(c.agent, path, exe)
			if err != nil || strings.Count(strings.Join(did, "\n"), "updated") != c.n {
				t.Errorf("install over the older hooks: %v, %q; want %d updated", err, did, c.n)
			}
			if n := hooks.InstalledIn(c.agent, path); n != hooks.InstalledCount(c.agent) {
				t.Errorf("%d of leasegate's hooks after installing again, want %d", n, hooks.InstalledCount(c.agent))
			}
			if p := says(); p != "" {
				t.Errorf("doctor after installing again says %q", p)
			}
		})
	}
}

// jsonString is s as install writes a JSON string: without encoding/json's
// escapes of <, > and &.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
