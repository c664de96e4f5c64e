package integration_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// TestHeldGitLockIsSaid: a git stash whose working-tree write waits for
// another worker's file holds .git/index.lock all the while, and every
// other git in the checkout fails meanwhile. The contention event, the
// requester's notices, the blocker report (JSON and Markdown) and status
// name the lock and the fastest way out.
func TestHeldGitLockIsSaid(t *testing.T) {
	const lock = ".git/index.lock"
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	alice := r.worker("alice", "echo alice >> b.txt && sleep 30")
	eventually(t, 5*time.Second, "alice's lease on b.txt", func() bool { return r.holders()["b.txt"] == "alice" })
	bob := r.start("run", "--as", "bob", "--retry-after", "4s", "--", "sh", "-c", "echo bob >> a.txt && git stash -q")
	eventually(t, 10*time.Second, "bob's contention on b.txt naming "+lock, func() bool {
		for _, e := range r.history("b.txt") {
			var d struct {
				Requester    string `json:"requester"`
				HoldsGitLock string `json:"holds_git_lock"`
			}
			if e.Type == gate.EventContention && json.Unmarshal(e.Data, &d) == nil && d.Requester == "bob" {
				if d.HoldsGitLock != lock {
					t.Fatalf("bob's contention says holds_git_lock %q, want %q: %s", d.HoldsGitLock, lock, e.Data)
				}
				return true
			}
		}
		return false
	})
	if _, err := os.Stat(filepath.Join(r.dir, lock)); err != nil {
		t.Fatalf("%s while bob's stash waits: %v", lock, err)
	}
	if out := r.mustLG("status"); !strings.Contains(out, "holds git's "+lock) {
		t.Errorf("status while bob's stash waits does not name %s:\n%s", lock, out)
	}
	id := waitBlockerFor(t, r, "bob", 20*time.Second)
	for _, b := range r.openBlockers() {
		if b.ID == id && b.HoldsGitLock != lock {
			t.Errorf("blocker %s holds_git_lock = %q, want %q", id, b.HoldsGitLock, lock)
		}
	}
	eventually(t, 5*time.Second, "blocker "+id+"'s Markdown naming the lock and the way out", func() bool {
		md, err := os.ReadFile(filepath.Join(r.dir, ".git", "leasegate", "blockers", id+".md"))
		return err == nil && strings.Contains(string(md), "Holds git's lock") && strings.Contains(string(md), "leasegate resolve "+id+" --deny")
	})
	for _, cmd := range [][]string{{"status"}, {"blockers"}} {
		if out := r.mustLG(cmd...); !strings.Contains(out, "leasegate resolve "+id+" --deny") {
			t.Errorf("%s with bob's blocker open does not say how to let git go on:\n%s", cmd[0], out)
		}
	}
	eventually(t, 5*time.Second, "bob's notice naming the lock", func() bool {
		return strings.Contains(bob.out.String(), "blocker "+id+": the held write's process holds git's "+lock)
	})
	if !strings.Contains(bob.out.String(), "holds git's "+lock+": every other git in the repository fails") {
		t.Errorf("bob's contention notice does not name the lock; output:\n%s", bob.out)
	}
	denyUntilDone(t, r, bob, id, "bob")
	kill(alice.cmd.Process.Pid)
}
