package workspace_test

import (
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// TestLocateWindowsSpellings: the paths Windows agents hand the hooks
// (either separator, any case, the drive letter in either case) are where
// the root's own spelling is, and their relative path is slash separated.
func TestLocateWindowsSpellings(t *testing.T) {
	w := &workspace.Workspace{Root: `C:\Users\Me\repo`, GitDir: `C:\Users\Me\repo\.git`,
		CommonDir: `C:\Users\Me\repo\.git`, StateDir: `C:\Users\Me\repo\.git\leasegate`}
	tests := []struct {
		abs   string
		class workspace.Class
		rel   string
	}{
		{abs: `C:\Users\Me\repo\src\x.go`, class: workspace.Gated, rel: "src/x.go"},
		{abs: `c:\users\me\repo\src\x.go`, class: workspace.Gated, rel: "src/x.go"},
		{abs: `c:/Users/Me/repo/src/x.go`, class: workspace.Gated, rel: "src/x.go"},
		{abs: `C:\Users\Me\repo`, class: workspace.Root, rel: "."},
		{abs: `C:\Users\Me\repo\LEASEGATE.JSON`, class: workspace.Operator, rel: "LEASEGATE.JSON"},
		{abs: `C:\Users\Me\repo\.GIT\index`, class: workspace.GitDir, rel: ".GIT/index"},
		{abs: `c:\users\me\repo\.git\LeaseGate\coord.sock`, class: workspace.StateDir, rel: ".git/LeaseGate/coord.sock"},
		{abs: `C:\Users\Me\repox\a.go`, class: workspace.Outside},
		{abs: `D:\Users\Me\repo\a.go`, class: workspace.Outside},
		{abs: `\\server\share\repo\a.go`, class: workspace.Outside},
	}
	for _, tt := range tests {
		v := w.Locate(tt.abs, workspace.ReachFile)
		if v.Class != tt.class || v.Rel != tt.rel {
			t.Errorf("Locate(%q) = %v %q, want %v %q", tt.abs, v.Class, v.Rel, tt.class, tt.rel)
		}
	}
}
