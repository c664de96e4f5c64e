package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// TestMkdirPLeavesItsParentsFree: `mkdir -p a/b/new` calls mkdir on each
// directory along the way, and the kernel fails those that exist with
// EEXIST, changing nothing. Such a mkdir neither leases the existing
// directory's whole subtree to the worker (every file beneath it, thousands
// in a real tree, would wait for that worker) nor leases its name.
func TestMkdirPLeavesItsParentsFree(t *testing.T) {
	r := newRepo(t, map[string]string{"docs/a.txt": "a\n", "docs/b.txt": "b\n"})
	alice := r.worker("alice", "mkdir -p docs/new/deep && touch docs/new/deep/x && mkdir docs; echo mkdir=$? && touch alice.done && sleep 8")
	eventually(t, 10*time.Second, "alice's mkdir -p", func() bool { _, err := os.Stat(filepath.Join(r.dir, "alice.done")); return err == nil })
	if h := r.holders(); h["docs/**"] != "" || h["docs"] != "" || h["docs/new/**"] != "alice" {
		t.Errorf("leases after alice's mkdir -p docs/new/deep: %v, want docs/new/** alice's and none of docs or docs/**", h)
	}
	bob := r.worker("bob", "echo y >> docs/a.txt")
	if code := bob.wait(t, 10*time.Second); code != 0 || strings.Contains(bob.out.String(), "contention") {
		t.Errorf("bob's write of docs/a.txt beside alice's new directory: exit %d, want 0 at once; output:\n%s", code, bob.out)
	}
	if evs := r.history("docs/**"); hasEvent(evs, gate.EventContention) {
		t.Errorf("alice's mkdir -p contended on docs: %v", evs)
	}
	if bs := r.openBlockers(); len(bs) != 0 {
		t.Errorf("open blockers after alice's mkdir -p: %v", bs)
	}
	r.mustLG("stop", "--as", "alice")
	alice.wait(t, 15*time.Second)
	if !strings.Contains(alice.out.String(), "mkdir=1") {
		t.Errorf("mkdir of the existing docs did not fail as mkdir does; output:\n%s", alice.out)
	}
}
