package mcp_test

import (
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/mcp"
)

// TestCheckFoldsCase: where the workspace's volume folds case,
// leases_check tells of a path held in another spelling, as the
// coordinator's table holds it: src/main.go is bob's Src/Main.go. The
// lease is a real coordinator's; the folding is given, as this volume
// does not fold.
func TestCheckFoldsCase(t *testing.T) {
	w := newWorld(t)
	w.register(t, "bob")
	w.acquire(t, "bob", "Src/Main.go")
	st, err := w.client.Status(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p, me string
		f     gate.Folding
		want  string
	}{
		{"src/main.go", "alice", gate.FoldCase, mcp.HeldByOther},
		{"SRC/MAIN.GO", "bob", gate.FoldCase, mcp.HeldByMe},
		{"src/main.go", "alice", gate.ExactCase, mcp.Free},
		{"src/other.go", "alice", gate.FoldCase, mcp.Free},
	} {
		if got := mcp.CheckState(st, c.p, c.me, c.f); got != c.want {
			t.Errorf("CheckState(%s, as %s, %v) = %s, want %s", c.p, c.me, c.f, got, c.want)
		}
	}
}
