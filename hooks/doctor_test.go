package hooks_test

import (
	"context"
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

// TestDiagnoseOpenOnFailure: doctor finds leasegate's PreToolUse hooks
// an older install wrote without "onFailure": "block" (Claude Code) or
// "failClosed": true (Cursor), which let a write through when the hook
// cannot run, and says to install again; a fresh install has none.
func TestDiagnoseOpenOnFailure(t *testing.T) {
	for _, c := range []struct {
		agent  hooks.Agent
		member string
		n      int
	}{
		{hooks.ClaudeCode, `, "onFailure": "block"`, 2},
		{hooks.Cursor, `, "failClosed": true`, 1},
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
			text := readFile(t, path)
			compact := strings.Join(strings.Fields(text), " ")
			old := strings.ReplaceAll(compact, c.member, "")
			if old == compact {
				t.Fatalf("no %s in the installed file:\n%s", c.member, text)
			}
			writeFile(t, path, old, 0o644)
			if p := says(); !strings.HasPrefix(p, fmt.Sprint(c.n)+" of leasegate's") || !strings.Contains(p, "leasegate install "+string(c.agent)) {
				t.Errorf("doctor with the member taken out says %q, want %d hooks named and install again", p, c.n)
			}
		})
	}
}
