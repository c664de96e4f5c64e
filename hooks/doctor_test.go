package hooks_test

import (
	"context"
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
