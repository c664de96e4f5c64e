package integration_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/intercept/fuse"
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

// TestFuseViewWithoutInotifySaid: a FUSE worker whose view gets no
// inotify instance still runs, its writes gated, and says on stderr that
// names and attributes are not kept, naming the limit it met (it said
// only "too many open files").
func TestFuseViewWithoutInotifySaid(t *testing.T) {
	if err := fuse.Available(); err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	r := newCheckout(t, map[string]string{"a.txt": "a\n"})
	out, err := runFuseLimited(t, r, "max_inotify_instances", 0, "echo b >> a.txt")
	if err != nil || r.read("a.txt") != "a\nb\n" {
		t.Fatalf("run --gate fuse with no inotify instance: %v, %s; a.txt %q", err, out, r.read("a.txt"))
	}
	if !strings.Contains(string(out), "names and attributes not kept") || !strings.Contains(string(out), "fs.inotify.max_user_instances") {
		t.Errorf("run --gate fuse with no inotify instance said %q; want that names and attributes are not kept, naming fs.inotify.max_user_instances", out)
	}
	if !hasEvent(r.history("a.txt"), gate.EventGranted) {
		t.Error("history of a.txt shows no lease granted for w's write")
	}
}

// TestFuseViewWatchLimitSaid: a FUSE worker whose view meets the user's
// limit of inotify watches (lowered here in a user namespace of its own)
// still runs, its writes gated, says so on stderr naming the sysctl, and
// status lists the first directory it could not watch as the worker's
// (op "view-unwatched"). Its walk of .git/ costs no watch.
func TestFuseViewWatchLimitSaid(t *testing.T) {
	if err := fuse.Available(); err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("d%02d/f.txt", i)] = "x\n"
	}
	r := newCheckout(t, files)
	out, err := runFuseLimited(t, r, "max_inotify_watches", 5, "find . >/dev/null && echo y >> d09/f.txt")
	if err != nil || r.read("d09/f.txt") != "x\ny\n" {
		t.Fatalf("run --gate fuse with 5 inotify watches for 11 directories: %v, %s; d09/f.txt %q", err, out, r.read("d09/f.txt"))
	}
	if !strings.Contains(string(out), "fs.inotify.max_user_watches") || strings.Count(string(out), "whose watch the kernel refused") != 1 {
		t.Errorf("run --gate fuse said %q; want one warning naming fs.inotify.max_user_watches", out)
	}
	var told []string
	eventually(t, 10*time.Second, "status lists the view's unwatched directory", func() bool {
		told = told[:0]
		for _, u := range r.status().Ungated {
			if u.Op == leasegate.OpViewUnwatched && u.Reporter == "w" {
				told = append(told, u.Path)
			}
		}
		return len(told) > 0
	})
	if len(told) != 1 || !strings.HasPrefix(told[0], "d") {
		t.Errorf("status lists %q as w's unwatched directories, want one of d00..d09 (.git/ is not watched)", told)
	}
	if out := r.mustLG("status"); !strings.Contains(out, "view-unwatched "+told[0]+" — w's FUSE view met the user's inotify limit here") {
		t.Errorf("status text does not say w's view left %s unwatched:\n%s", told[0], out)
	}
	if out, _, _ := r.lg("doctor"); !strings.Contains(out, "coordinator: note: the user's inotify limit was met by w's FUSE view at "+told[0]) ||
		!strings.Contains(out, "fs.inotify.max_user_watches = ") {
		t.Errorf("doctor does not name w's view and the limit:\n%s", out)
	}
}

// runFuseLimited starts r's coordinator and runs sh -c script in r as the
// FUSE worker w, in a user namespace of its own whose inotify limit
// /proc/sys/user/NAME is set to value, and returns what run said. It
// skips the test where no user namespace can be made.
func runFuseLimited(t *testing.T, r *repo, name string, value int, script string) ([]byte, error) {
	t.Helper()
	if err := exec.Command("unshare", "-Ur", "true").Run(); err != nil {
		t.Skipf("no user namespace to lower the inotify limit in: %v", err)
	}
	r.startServer(retryAfter, idleAfter)
	cmd := exec.Command("unshare", "-Ur", "sh", "-c", fmt.Sprintf(`echo %d > /proc/sys/user/%s && exec "$@"`, value, name), "sh",
		bin, "run", "--gate", "fuse", "--as", "w", "--", "sh", "-c", script)
	cmd.Dir, cmd.Env = r.dir, r.env
	return cmd.CombinedOutput()
}
