package mcp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/mcp"
)

// TestStatusShowsANarrowedNewDirectoryInBrief: leases_status's text names
// a new directory's lease, narrowed to the many entries it holds, by its
// first few paths and how many more, and says it is a new directory's;
// its structure gives every path and new_dir.
func TestStatusShowsANarrowedNewDirectoryInBrief(t *testing.T) {
	w := newWorld(t)
	w.register(t, "alice")
	w.register(t, "bob")
	r, err := w.client.Mutate(w.ctx, leasegate.MutateRequest{Owner: "alice", Op: "mkdir", Paths: []string{"gen/**"}, Try: true})
	if err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("alice's mkdir gen = %s, %v; want granted", r.Outcome, err)
	}
	dir := filepath.Join(w.ws.Root, "gen")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := w.client.Mutate(w.ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"gen/new"}}); err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("bob's write of gen/new = %s, %v; want granted by narrowing alice's lease", r.Outcome, err)
	}
	cs := w.session(t, "carol", nil)
	var out mcp.StatusOutput
	txt := mustCall(t, cs, "leases_status", map[string]any{}, &out)
	var narrowed *mcp.Holding
	for i, h := range out.Leases {
		if h.Holder == "alice" {
			narrowed = &out.Leases[i]
		}
	}
	if narrowed == nil || !narrowed.NewDir || len(narrowed.Paths) != 21 {
		t.Fatalf("leases_status leases = %+v, want alice's narrowed lease with new_dir and its 21 paths", out.Leases)
	}
	want := fmt.Sprintf("on gen, gen/f00, gen/f01, gen/f02, gen/f03, and %d more (a new directory its holder created)\n", 21-gate.MaxShownPaths)
	if !strings.Contains(txt, want) || strings.Contains(txt, "gen/f04") {
		t.Errorf("leases_status text lacks %q or names more:\n%s", want, txt)
	}
}
