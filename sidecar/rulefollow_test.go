package sidecar

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// TestIgnoreChangesByOthersReachTheRule: when another writer changes what
// git ignores, the event stream tells this sidecar, whose git had read the
// ignore files before: a path no longer ignored is gated from then on.
func TestIgnoreChangesByOthersReachTheRule(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   gate.Event
	}{
		{"another worker's write", gate.Event{Type: gate.EventRuleChanged, Actor: "bob", Path: ".gitignore", Reason: "open-write"}},
		{"an ungated write", gate.Event{Type: gate.EventUngatedWrite, Actor: "watcher", Path: "sub/.gitignore", Reason: "write"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			ignores := filepath.Join(root, filepath.FromSlash(tc.ev.Path))
			if err := os.MkdirAll(filepath.Dir(ignores), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ignores, []byte("gen/\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ws, err := workspace.Find(root)
			if err != nil {
				t.Fatal(err)
			}
			s := newTestSidecar(t, ws)
			s.leased = newLeased()
			gen := filepath.Join(filepath.Dir(ignores), "gen")
			if v := s.rule.ClassifyPath(filepath.Join(gen, "a"), workspace.ReachFile); v.Class != workspace.Ignored {
				t.Fatalf("ClassifyPath(gen/a) = %+v before the change, want ignored", v)
			}
			if err := os.WriteFile(ignores, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			s.observe(tc.ev)
			if v := s.rule.ClassifyPath(filepath.Join(gen, "b"), workspace.ReachFile); v.Class != workspace.Gated {
				t.Errorf("ClassifyPath(gen/b) = %+v after %s of %s, want gated", v, tc.ev.Type, tc.ev.Path)
			}
		})
	}
}
