package mcp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/mcp"
)

// TestPathsThroughSymlinks: a path is the file it names, as the sidecar
// and the hooks take it. A link to a held file is that file, held; a path
// through a link out of the workspace is outside it, for leases_check as
// for lease_acquire; and no check-out is taken on the link's own name.
func TestPathsThroughSymlinks(t *testing.T) {
	w := newWorld(t)
	root, out := w.ws.Root, t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"alias.go": "a.go", "esc": out} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	w.register(t, "bob")
	w.acquire(t, "bob", "a.go")
	cs := w.session(t, "alice", nil)

	var check mcp.CheckOutput
	mustCall(t, cs, "leases_check", map[string]any{"paths": []string{"alias.go"}}, &check)
	if len(check.Paths) != 1 || check.Paths[0].State != mcp.HeldByOther {
		t.Errorf("leases_check(alias.go) = %+v, want held by other: it is a.go, which bob holds", check.Paths)
	}
	for _, tool := range []string{"leases_check", "lease_acquire"} {
		if code, msg := toolError(t, cs, tool, map[string]any{"paths": []string{"esc/x.go"}}); code != gate.ReasonOutsideWorkspace {
			t.Errorf("%s(esc/x.go) = %s (%s), want %s", tool, code, msg, gate.ReasonOutsideWorkspace)
		}
	}
	if code, msg := toolError(t, cs, "lease_acquire", map[string]any{"paths": []string{"alias.go"}}); code != gate.ReasonHeldByOther {
		t.Errorf("lease_acquire(alias.go) = %s (%s), want %s", code, msg, gate.ReasonHeldByOther)
	}
}

// TestAbsolutePaths: an absolute path inside the workspace is taken by the
// workspace's path rules, as a relative one is: a trailing separator names
// the directory's tree, and a ".." is refused, not cleaned away. Cleaned
// lexically, link/../x.go would be x.go, while the kernel writes
// src/real/../x.go, that is src/x.go: the lease would cover another file.
func TestAbsolutePaths(t *testing.T) {
	w := newWorld(t)
	root := w.ws.Root
	if err := os.MkdirAll(filepath.Join(root, "src", "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "src", "real"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	cs := w.session(t, "alice", nil)

	var check mcp.CheckOutput
	tree := filepath.Join(root, "src") + string(filepath.Separator)
	mustCall(t, cs, "leases_check", map[string]any{"paths": []string{tree}}, &check)
	if len(check.Paths) != 1 || check.Paths[0].Path != "src/**" {
		t.Errorf("leases_check(%s) = %+v, want the tree src/**", tree, check.Paths)
	}
	through := root + filepath.FromSlash("/link/../x.go") // not Join, which cleans
	for _, tool := range []string{"leases_check", "lease_acquire"} {
		if code, msg := toolError(t, cs, tool, map[string]any{"paths": []string{through}}); code != gate.ReasonOutsideWorkspace {
			t.Errorf("%s(%s) = %s (%s), want %s", tool, through, code, msg, gate.ReasonOutsideWorkspace)
		}
	}
}
