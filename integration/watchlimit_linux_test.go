package integration_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestWatchLimitSaid: a coordinator whose watcher meets inotify's limit
// (fs.inotify.max_user_watches, lowered here in a user namespace of its
// own) keeps serving and says so where a user looks: status lists the
// first directory left unwatched (op "unwatched"), and serve.log names the
// limit that was met, inotify's, not another platform's.
func TestWatchLimitSaid(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("d%02d/f.txt", i)] = "x\n"
	}
	r := newCheckout(t, files)
	if err := exec.Command("unshare", "-Ur", "true").Run(); err != nil {
		t.Skipf("no user namespace to lower the inotify limit in: %v", err)
	}
	r.startServerCmd(exec.Command("unshare", append([]string{"-Ur", "sh", "-c",
		`echo 10 > /proc/sys/user/max_inotify_watches && exec "$@"`, "sh", bin}, r.serveArgs(retryAfter, idleAfter)...)...))
	unwatched := ""
	eventually(t, 10*time.Second, "status with 10 inotify watches for 41 directories lists an unwatched one", func() bool {
		for _, u := range r.status().Ungated {
			if u.Op == "unwatched" {
				unwatched = u.Path
			}
		}
		return unwatched != ""
	})
	if out := r.mustLG("status"); !strings.Contains(out, "unwatched "+unwatched+" — the watcher met its limit here") {
		t.Errorf("status text does not say %s is unwatched:\n%s", unwatched, out)
	}
	if _, errs, code := r.lg("run", "--as", "w", "--", "sh", "-c", "echo y >> d39/f.txt"); code != 0 {
		t.Errorf("run under the partial watcher: exit %d, %s", code, errs)
	}
	r.stopServer() // its log is complete, and no longer written
	if log := r.log.String(); !strings.Contains(log, "fs.inotify.max_user_watches") || strings.Contains(log, "ulimit -n") {
		t.Errorf("serve.log does not name inotify's limit alone:\n%s", log)
	}
}

// TestNoInotifyInstanceSaid: a coordinator that gets no inotify instance
// (the user's fs.inotify.max_user_instances used up by editors and other
// watchers) watches nothing: status says the whole workspace is
// unwatched, and serve.log names the limit. Only the log said so, naming
// "too many open files".
func TestNoInotifyInstanceSaid(t *testing.T) {
	r := newCheckout(t, map[string]string{"a.txt": "a\n"})
	if err := exec.Command("unshare", "-Ur", "true").Run(); err != nil {
		t.Skipf("no user namespace to lower the inotify limit in: %v", err)
	}
	r.startServerCmd(exec.Command("unshare", append([]string{"-Ur", "sh", "-c",
		`echo 0 > /proc/sys/user/max_inotify_instances && exec "$@"`, "sh", bin}, r.serveArgs(retryAfter, idleAfter)...)...))
	eventually(t, 10*time.Second, "status with no inotify instance lists the root unwatched", func() bool {
		for _, u := range r.status().Ungated {
			if u.Op == "unwatched" && u.Path == "." {
				return true
			}
		}
		return false
	})
	r.stopServer() // its log is complete, and no longer written
	if log := r.log.String(); !strings.Contains(log, "fs.inotify.max_user_instances") {
		t.Errorf("serve.log does not name inotify's instance limit:\n%s", log)
	}
}
