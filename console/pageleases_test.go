package console_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// pageLeases runs the page's script in Node (testdata/pageleases.js, a
// stand-in for the browser's DOM) over the stream's events, and returns
// the lease tree's last full render and the leaves added since.
func pageLeases(t *testing.T, events ...any) (rendered string, added []string) {
	t.Helper()
	node, err := exec.LookPath("node")
	switch {
	case err != nil && os.Getenv("CI") == "true" && runtime.GOOS == "linux":
		// .ci/run installs Debian's nodejs; the Windows build's tests,
		// run under Wine in the same CI, have none.
		t.Fatal("no node to run the page's script in: .ci/run installs Debian's nodejs")
	case err != nil:
		t.Skip("no node to run the page's script in")
	}
	var in bytes.Buffer
	for i := 0; i < len(events); i += 2 {
		line, err := json.Marshal(map[string]any{"event": events[i], "data": events[i+1]})
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(line, '\n'))
	}
	cmd := exec.Command(node, "testdata/pageleases.js", "assets/app.js")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node pageleases.js: %v\n%s", err, stderr.Bytes())
	}
	var out struct {
		Rendered string   `json:"rendered"`
		Added    []string `json:"added"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("node pageleases.js said %q: %v", stdout, err)
	}
	return out.Rendered, out.Added
}

// TestPageShowsANewDirectoryAsOneLeaf: the page's lease tree shows a new
// directory's lease, narrowed to thousands of entries, as one leaf marked
// as a new directory's and how many paths it holds, not a leaf per path;
// a lease.narrowed event replaces the lease's leaves with that one.
func TestPageShowsANewDirectoryAsOneLeaf(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	paths := []string{"gen"}
	for i := range gate.MaxPaths - 1 {
		paths = append(paths, fmt.Sprintf("gen/f%04d", i))
	}
	fresh := gate.Lease{ID: "01JNEWDIR", Owner: gate.Owner{Name: "alice"}, Kind: gate.KindAuto, State: gate.StateActive,
		Scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{"gen/**"}}, FencingToken: 1, AcquiredAt: at, NewDir: true}
	narrowed := fresh
	narrowed.Scope.Paths = paths
	count := func(html string) int { return strings.Count(html, `class="leaf"`) }

	rendered, _ := pageLeases(t, "snapshot", leasegate.Status{Now: at, Leases: []gate.Lease{narrowed}})
	if n := count(rendered); n != 1 || !strings.Contains(rendered, fmt.Sprintf("new directory · narrowed to %d paths", gate.MaxPaths)) {
		t.Errorf("the snapshot's lease tree has %d leaves (%d bytes), want one marked as a narrowed new directory", n, len(rendered))
	}

	ev := gate.Event{Seq: 2, At: at, Type: gate.EventNarrowed, LeaseID: narrowed.ID, Lease: &narrowed, Actor: "bob", Path: "gen/new"}
	rendered, added := pageLeases(t, "snapshot", leasegate.Status{Now: at, Leases: []gate.Lease{fresh}}, "ledger", ev)
	if !strings.Contains(rendered, "new directory</span>") {
		t.Errorf("the snapshot's lease tree does not mark gen/** as a new directory:\n%s", rendered)
	}
	if len(added) != 1 || !strings.Contains(added[0], `data-path="gen"`) || !strings.Contains(added[0], "narrowed to ") {
		t.Errorf("lease.narrowed added %d leaves, want one, gen's, marked narrowed: %.500q", len(added), added)
	}
}
