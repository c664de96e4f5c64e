package hooks_test

import (
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
		}, 2, false, []string{"1 hook(s) Codex does not list"}},
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
