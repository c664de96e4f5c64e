package mcp_test

import (
	"strings"
	"testing"

	"github.com/leasegate/leasegate/mcp"
)

// TestBlockersListSaysWhetherTheHolderHolds: blockers_list shows, in its
// JSON and its text, whether each blocker's holder still holds the file
// as the list is read, so an agent is not told of a holder that let go.
func TestBlockersListSaysWhetherTheHolderHolds(t *testing.T) {
	w := newWorld(t)
	w.register(t, "bob")
	w.register(t, "carol")
	held := w.acquire(t, "bob", "a.go")
	w.blockedWrite(t, "carol", "a.go")
	cs := w.session(t, "alice", nil)

	var list mcp.BlockersOutput
	text := mustCall(t, cs, "blockers_list", map[string]any{}, &list)
	if len(list.Blockers) != 1 {
		t.Fatalf("blockers = %+v, want one", list)
	}
	if b := list.Blockers[0]; b.HolderHolds == nil || !*b.HolderHolds || b.HolderNow != "holds the file (lease active)" ||
		!strings.Contains(text, "; the holder still holds the file (lease active)") {
		t.Errorf("blockers_list while bob holds a.go = %+v\n%s\nwant holder_holds true, holder_now %q, and the text saying so", b, text, "holds the file (lease active)")
	}

	w.release(t, "bob", held)
	text = mustCall(t, cs, "blockers_list", map[string]any{}, &list)
	if len(list.Blockers) != 1 {
		t.Fatalf("blockers after the release = %+v, want one", list)
	}
	want := "lease released at "
	if b := list.Blockers[0]; b.HolderHolds == nil || *b.HolderHolds || !strings.HasPrefix(b.HolderNow, want) ||
		!strings.Contains(text, "; the holder no longer holds it: "+b.HolderNow) {
		t.Errorf("blockers_list after bob released a.go = %+v\n%s\nwant holder_holds false, holder_now %q…, and the text saying so", b, text, want)
	}
}
