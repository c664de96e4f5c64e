package workspace_test

import (
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// TestArgPathWindows: a command-line path in any Windows spelling is the
// workspace-relative slash path, a trailing "\" names a tree as "/" does,
// a rooted "\x" is on the current directory's drive, and a path on another
// drive is outside.
func TestArgPathWindows(t *testing.T) {
	w := &workspace.Workspace{Root: `C:\nowhere\repo`}
	tests := []struct{ cwd, arg, want string }{
		{cwd: `C:\nowhere\repo`, arg: `src\a.go`, want: "src/a.go"},
		{cwd: `c:\NOWHERE\repo\src`, arg: `a.go`, want: "src/a.go"},
		{cwd: `C:\nowhere\repo`, arg: `c:/nowhere/REPO/docs/`, want: "docs/**"},
		{cwd: `C:\nowhere\repo`, arg: `docs\`, want: "docs/**"},
		{cwd: `C:\nowhere\repo`, arg: `C:\nowhere\repo\docs\`, want: "docs/**"},
		{cwd: `C:\nowhere\repo`, arg: `docs\*.go`, want: "docs/*.go"},
		{cwd: `C:\nowhere\repo\src`, arg: `\nowhere\repo\x.go`, want: "x.go"},
		{cwd: `C:\nowhere\repo\src`, arg: `C:b.go`, want: "src/b.go"},
	}
	for _, tt := range tests {
		if got, err := w.ArgPath(tt.cwd, tt.arg); got != tt.want || err != nil {
			t.Errorf("ArgPath(%q, %q) = %q, %v, want %q", tt.cwd, tt.arg, got, err, tt.want)
		}
	}
	if got, err := w.ArgPath(`C:\nowhere\repo`, `D:\nowhere\repo\a.go`); err == nil {
		t.Errorf("ArgPath(D:) = %q, want an error", got)
	}
}
