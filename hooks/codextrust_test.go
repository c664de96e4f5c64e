package hooks_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

func TestCodexTrustProblem(t *testing.T) {
	hook := func(status string, enabled bool) hooks.CodexHook {
		return hooks.CodexHook{Event: "preToolUse", Matcher: "^apply_patch$", Enabled: enabled, TrustStatus: status}
	}
	base := hooks.CodexTrust{Root: "/w", HooksFile: "/w/.codex/hooks.json", ProjectHooks: true, ConfigFile: "/h/.codex/config.toml"}
	cases := []struct {
		name  string
		t     func(hooks.CodexTrust) hooks.CodexTrust
		want  int
		ready bool
		says  []string
	}{
		{"project untrusted", func(c hooks.CodexTrust) hooks.CodexTrust { c.ProjectReason = "add it"; return c }, 1, false,
			[]string{"does not trust the project /w", `"add it"`, "leasegate install codex --trust"}},
		{"hook untrusted", func(c hooks.CodexTrust) hooks.CodexTrust {
			c.ProjectTrusted, c.Hooks = true, []hooks.CodexHook{hook("untrusted", true)}
			return c
		}, 1, false, []string{"skips 1 of leasegate's hooks", "preToolUse ^apply_patch$ (untrusted)"}},
		{"hook modified", func(c hooks.CodexTrust) hooks.CodexTrust {
			c.ProjectTrusted, c.Hooks = true, []hooks.CodexHook{hook("modified", true)}
			return c
		}, 1, false, []string{"(modified)"}},
		{"hook disabled", func(c hooks.CodexTrust) hooks.CodexTrust {
			c.ProjectTrusted, c.Hooks = true, []hooks.CodexHook{hook("trusted", false)}
			return c
		}, 1, false, []string{"(disabled)"}},
		{"one missing", func(c hooks.CodexTrust) hooks.CodexTrust {
			c.ProjectTrusted, c.Hooks = true, []hooks.CodexHook{hook("trusted", true)}
			return c
		}, 2, false, []string{"1 hook(s) Codex does not list", "skips 1 of leasegate's hooks"}},
		{"none listed", func(c hooks.CodexTrust) hooks.CodexTrust { c.ProjectTrusted = true; return c }, 5, false,
			[]string{"skips 5 of leasegate's hooks", "5 hook(s) Codex does not list, so it does not read them from /w/.codex/hooks.json"}},
		{"all trusted", func(c hooks.CodexTrust) hooks.CodexTrust {
			c.ProjectTrusted, c.Hooks = true, []hooks.CodexHook{hook("trusted", true), hook("managed", true)}
			return c
		}, 2, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.t(base)
			if got := c.Ready(tc.want); got != tc.ready {
				t.Fatalf("Ready = %v, want %v", got, tc.ready)
			}
			p := c.Problem(tc.want)
			if tc.ready != (p == "") {
				t.Fatalf("Problem = %q", p)
			}
			for _, s := range tc.says {
				if !strings.Contains(p, s) {
					t.Errorf("Problem %q does not say %q", p, s)
				}
			}
		})
	}
}

// TestCodexTrustFromConfig: without the codex program, the trust the
// user gave is read from Codex's config under the keys Codex files it by,
// and said to be unverified.
func TestCodexTrustFromConfig(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	t.Setenv("CODEX_HOME", home)
	file := hooks.SettingsPath(hooks.Codex, root)
	if _, err := hooks.Install(hooks.Codex, file, exe); err != nil {
		t.Fatal(err)
	}
	got, err := hooks.CodexTrustFromConfig(root, file)
	if err != nil {
		t.Fatal(err)
	}
	if got.ProjectTrusted || !got.Unverified || len(got.Hooks) != 5 || !strings.Contains(got.Problem(5), "does not trust the project") {
		t.Fatalf("with no config: %+v, problem %q", got, got.Problem(5))
	}
	cfg := "[projects." + strconv.Quote(root) + "]\ntrust_level = \"trusted\"\n"
	for _, k := range []string{"pre_tool_use:0:0", "pre_tool_use:1:0", "post_tool_use:0:0", "user_prompt_submit:0:0"} {
		cfg += "[hooks.state." + strconv.Quote(file+":"+k) + "]\ntrusted_hash = \"sha256:x\"\n"
	}
	writeFile(t, filepath.Join(home, "config.toml"), cfg, 0o600)
	if got, err = hooks.CodexTrustFromConfig(root, file); err != nil {
		t.Fatal(err)
	}
	if p := got.Problem(5); !got.ProjectTrusted || !strings.Contains(p, "skips 1 of leasegate's hooks") || !strings.Contains(p, "Stop (untrusted)") {
		t.Fatalf("with four hooks trusted: %+v, problem %q", got, p)
	}
	writeFile(t, filepath.Join(home, "config.toml"), cfg+"[hooks.state."+strconv.Quote(file+":stop:0:0")+"]\ntrusted_hash = \"sha256:y\"\n", 0o600)
	if got, err = hooks.CodexTrustFromConfig(root, file); err != nil {
		t.Fatal(err)
	}
	if !got.Ready(5) || !strings.Contains(got.Verdict(), "not checked") {
		t.Fatalf("with all trusted: %+v, verdict %q", got, got.Verdict())
	}
}
