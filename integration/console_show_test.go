//go:build linux

package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leasegate/leasegate/internal/disktest"
)

// TestConsoleShowsHeldGitLock: a git stash whose working-tree write waits
// for another worker's file holds .git/index.lock. The page says so on
// the waiter's contention row and then on its blocker card, each with the
// fastest way out that status and blockers give.
func TestConsoleShowsHeldGitLock(t *testing.T) {
	const lock = ".git/index.lock"
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	url := startUI(t, r)
	ctx := browser(t, 2*time.Minute)
	run(t, ctx, "log in", chromedp.Navigate(url), chromedp.WaitVisible(`#conn.on`, chromedp.ByQuery))
	alice := r.worker("alice", "echo alice >> b.txt && sleep 60")
	eventually(t, 5*time.Second, "alice's lease on b.txt", func() bool { return r.holders()["b.txt"] == "alice" })
	bob := r.start("run", "--as", "bob", "--retry-after", "6s", "--", "sh", "-c", "echo bob >> a.txt && git stash -q")

	var row string
	run(t, ctx, "bob's contention row naming the lock", chromedp.WaitVisible(`[data-contention-git-lock] [data-git-lock=".git/index.lock"]`, chromedp.ByQuery),
		chromedp.Text(`[data-contention-git-lock]`, &row, chromedp.ByQuery))
	cons := r.status().Contentions
	if len(cons) != 1 || !strings.Contains(row, "holds git's "+lock) || !strings.Contains(row, "leasegate resolve "+cons[0].ID+" --deny") {
		t.Errorf("contention row on the page = %q; want the lock and `leasegate resolve ID --deny` of contention %+v", row, cons)
	}
	screenshot(t, ctx, "console-git-lock-contention.png")

	id := waitBlockerFor(t, r, "bob", 30*time.Second)
	var card string
	sel := `[data-blocker-id="` + id + `"] [data-git-lock=".git/index.lock"]`
	run(t, ctx, "bob's blocker card naming the lock", chromedp.WaitVisible(sel, chromedp.ByQuery), chromedp.Text(sel, &card, chromedp.ByQuery))
	if !strings.Contains(card, "every other git in the repository fails") || !strings.Contains(card, "leasegate resolve "+id+" --deny") {
		t.Errorf("blocker card's git lock line = %q; want what it means and `leasegate resolve %s --deny`", card, id)
	}
	screenshot(t, ctx, "console-git-lock-blocker.png")
	denyUntilDone(t, r, bob, id, "bob")
	kill(alice.cmd.Process.Pid)
}

// TestConsoleMarksUngatedNotRecorded: with the ledger degraded on a full
// disk (a real ENOSPC on a tmpfs, root only), an ungated write the ledger
// refuses is marked on the page as not recorded, with the reason; status
// --json says not_recorded for the same write.
func TestConsoleMarksUngatedNotRecorded(t *testing.T) {
	r := newRepo(t, nil)
	state := stateOnSmallDisk(t, r, "8m")
	url := startUI(t, r)
	ctx := browser(t, 3*time.Minute)
	run(t, ctx, "log in", chromedp.Navigate(url), chromedp.WaitVisible(`#conn.on`, chromedp.ByQuery))
	disktest.Fill(t, state)
	grantUntilRefused(t, r, "a")
	if err := os.WriteFile(filepath.Join(r.dir, "unseen.txt"), []byte("no gate saw me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the ungated write of unseen.txt in status", func() bool { _, ok := r.ungatedWrites()["unseen.txt"]; return ok })
	if w := r.ungatedWrites()["unseen.txt"]; !w.NotRecorded {
		t.Fatalf("status says the ungated write %+v was recorded on a full disk", w)
	}
	var row string
	sel := `#ungated tr[data-not-recorded] button[data-path="unseen.txt"]`
	run(t, ctx, "the unrecorded write's row", chromedp.WaitVisible(sel, chromedp.ByQuery),
		chromedp.Text(`#ungated tr[data-not-recorded]`, &row, chromedp.ByQuery))
	if !strings.Contains(row, "not recorded") || !strings.Contains(row, "the ledger refused it") {
		t.Errorf("the page's row of the unrecorded write = %q; want it marked not recorded, with the reason", row)
	}
	screenshot(t, ctx, "console-not-recorded.png")
}
