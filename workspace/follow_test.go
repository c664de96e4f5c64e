package workspace_test

import (
	"strings"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// TestRuleFollowsConfig: a rule takes what leasegate.json says is gated
// once it is written (exclude, include, gate_git_ignored), forgetting the
// verdicts it cached; a write that leaves that alone, or a file that does
// not load, changes nothing.
func TestRuleFollowsConfig(t *testing.T) {
	repo := mustRepo(t)
	mustWrite(t, repo, ".gitignore", "build/\n")
	r := mustRule(t, mustFind(t, repo))
	classify := func(rel string) workspace.Class { return r.Classify(rel) }
	follow := func(cfg string, want bool) {
		t.Helper()
		mustWrite(t, repo, workspace.ConfigFile, cfg)
		changed, err := r.Follow()
		if changed != want || (err != nil) != strings.Contains(cfg, "[}") {
			t.Fatalf("Follow() after %s = %v, %v; want changed %v", cfg, changed, err, want)
		}
	}
	if c := classify("tmp/x"); c != workspace.Gated {
		t.Fatalf("tmp/x = %v before any exclude, want Gated", c)
	}
	if changed, err := r.Follow(); changed || err != nil {
		t.Fatalf("Follow() with nothing written = %v, %v", changed, err)
	}
	follow(`{"exclude": ["tmp/**"]}`, true)
	if c := classify("tmp/x"); c != workspace.Excluded {
		t.Errorf("tmp/x = %v after exclude tmp/**, want Excluded", c)
	}
	follow(`{"exclude": ["tmp/**"], "pairs": []}`, false) // pairs are the coordinator's
	follow(`{"exclude": [}`, false)
	if c := classify("tmp/x"); c != workspace.Excluded {
		t.Errorf("tmp/x = %v after a file that does not load, want the rule before it", c)
	}
	if c := classify("build/o"); c != workspace.Ignored {
		t.Fatalf("build/o = %v, want Ignored", c)
	}
	follow(`{"gate_git_ignored": true}`, true)
	if c, t2 := classify("build/o"), classify("tmp/x"); c != workspace.Gated || t2 != workspace.Gated {
		t.Errorf("build/o, tmp/x = %v, %v with gate_git_ignored and no exclude, want both Gated", c, t2)
	}
	if !strings.Contains(r.Describe(), "ignored by git or not") {
		t.Errorf("Describe() = %q, want the new rule", r.Describe())
	}
	follow(`{"include": ["build/schema/**"]}`, true)
	if c, o := classify("build/schema/s.json"), classify("build/o"); c != workspace.Gated || o != workspace.Ignored {
		t.Errorf("build/schema/s.json, build/o = %v, %v, want Gated by include and Ignored by git again", c, o)
	}
}
