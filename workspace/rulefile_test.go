package workspace_test

import (
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

func TestRuleFile(t *testing.T) {
	w := &workspace.Workspace{Root: "/ws", GitDir: "/main/.git/worktrees/ws", CommonDir: "/main/.git"}
	tests := []struct {
		abs, want string
		ok        bool
	}{
		{abs: "/ws/leasegate.json", want: "leasegate.json", ok: true},
		{abs: "/ws/.gitignore", want: ".gitignore", ok: true},
		{abs: "/ws/src/.gitignore", want: "src/.gitignore", ok: true},
		{abs: "/main/.git/info/exclude", want: ".git/info/exclude", ok: true},
		{abs: "/main/.git/worktrees/ws/config.worktree", want: ".git/config.worktree", ok: true},
		{abs: "/main/.git/config", want: ".git/config", ok: true},
		{abs: "/main/.git/hooks/pre-commit", want: ".git/hooks/pre-commit", ok: true},
		{abs: "/main/.git/info", want: ".git/info", ok: true},
		{abs: "/main/.git/info/attributes", want: ".git/info/attributes", ok: true},
		{abs: "/ws/src/leasegate.json"},
		{abs: "/main/.git/index"},
		{abs: "/main/.git/refs/heads/main"},
		{abs: "/ws/a.txt"},
	}
	for _, tt := range tests {
		if got, ok := w.RuleFile(tt.abs); got != tt.want || ok != tt.ok {
			t.Errorf("RuleFile(%q) = %q, %v, want %q, %v", tt.abs, got, ok, tt.want, tt.ok)
		}
	}
}
