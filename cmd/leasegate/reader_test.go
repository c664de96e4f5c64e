package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/workspace"
)

// TestNoneRunningOnASharedTable: with no coordinator running, a workspace
// of its own holds nothing, but one whose lease table is shared on etcd
// does not read as free: the line names the shared workspace and says
// that what others hold is not shown.
func TestNoneRunningOnASharedTable(t *testing.T) {
	root := t.TempDir()
	ws := &workspace.Workspace{Root: root, StateDir: filepath.Join(root, ".git", "leasegate"), Config: workspace.DefaultConfig()}
	if got := noneRunningLine(ws); got != "no coordinator running (nothing is held)" {
		t.Errorf("own ledger, none yet: %q", got)
	}
	ws.Config.Cluster = &workspace.Cluster{Endpoints: []string{"http://10.0.0.5:2379"}, Workspace: "acme/web"}
	got := noneRunningLine(ws)
	if strings.Contains(got, "nothing is held") || !strings.Contains(got, `workspace "acme/web" at http://10.0.0.5:2379`) || !strings.Contains(got, "not shown") {
		t.Errorf("shared table: %q, want it to name the shared workspace and not read as free", got)
	}
}
