package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/workspace"
)

// TestArgPath pins how a command-line path or glob becomes
// workspace-relative: against the directory it was typed in, through
// symlinks, globs kept, and refused when it leaves the workspace.
func TestArgPath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "src", "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "src", "real"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(root, "away")); err != nil {
		t.Fatal(err)
	}
	ws := &workspace.Workspace{Root: root}
	tests := []struct {
		name, cwd, arg, want string
	}{
		{"relative to the root", root, "src/a.go", "src/a.go"},
		{"relative to a subdirectory", filepath.Join(root, "src"), "b.go", "src/b.go"},
		{"absolute", "", filepath.Join(root, "src", "c.go"), "src/c.go"},
		{"through a symlink", root, "link/new.go", "src/real/new.go"},
		{"glob kept after the resolved prefix", root, "link/*.go", "src/real/*.go"},
		{"glob in the middle", root, "src/*/x.go", "src/*/x.go"},
		{"trailing slash names the tree", root, "src/real/", "src/real/**"},
		{"dot-dot inside", filepath.Join(root, "src"), "../top.go", "top.go"},
		{"dot-dot out", root, "../x.go", ""},
		{"dot-dot after a symlink", root, "link/../x.go", "src/x.go"},
		{"dot-dot after a symlink out", root, "away/../x.go", ""},
		{"glob after a dot-dot after a symlink", root, "link/../*.go", "src/*.go"},
		{"symlink out", root, "away/x.go", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ws.ArgPath(tc.cwd, tc.arg)
			if tc.want == "" {
				var d *gate.DeniedError
				if !errors.As(err, &d) || d.Reason != gate.ReasonOutsideWorkspace {
					t.Fatalf("ArgPath(%s, %s) = %q, %v, want a %s denial", tc.cwd, tc.arg, got, err, gate.ReasonOutsideWorkspace)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ArgPath(%s, %s) = %q, %v, want %q", tc.cwd, tc.arg, got, err, tc.want)
			}
		})
	}
}

// TestArgPathEmpty: an empty path is refused as invalid input saying it
// is empty, not as the workspace root, which it does not name.
func TestArgPathEmpty(t *testing.T) {
	ws := &workspace.Workspace{Root: t.TempDir()}
	_, err := ws.ArgPath(ws.Root, "")
	var d *gate.DeniedError
	if !errors.As(err, &d) || d.Reason != gate.ReasonInputInvalid || d.Message != "a path is empty: give a file, a folder (ending in /) or a glob" {
		t.Errorf("ArgPath of an empty path = %v, want %s saying it is empty", err, gate.ReasonInputInvalid)
	}
}
