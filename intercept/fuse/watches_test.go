//go:build linux && (amd64 || arm64)

package fuse_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// TestWatchesOnlyWhatConfigNames: the view watches the directories the
// kernel learns of that Config.Watches names and no other: a walk of
// .git/ and of an ignored tree costs none of the user's watches. A change made outside in a directory left unwatched is
// seen at once all the same: nothing of its names is kept.
func TestWatchesOnlyWhatConfigNames(t *testing.T) {
	root := workspace(t)
	for _, d := range []string{"src/a", "src/b", ".git/objects/aa", ".git/objects/bb", "build/x/y"} {
		mustMkdir(t, filepath.Join(root, d))
	}
	mustWrite(t, filepath.Join(root, "build/x/y/f"), "before")
	fifo := mustFifo(t)
	var out buffer
	cfg := testConfig(t, root, &recorder{}, &out, "find . >/dev/null; cat build/x/y/f; echo; echo walked; read x < "+fifo+
		"; cat build/x/y/f; echo; test -e build/x/y/new && echo new")
	cfg.WatchedTimeout = time.Hour
	var mu sync.Mutex
	asked := map[string]int{}
	cfg.Watches = func(dir string) bool {
		rel, _ := filepath.Rel(root, dir)
		mu.Lock()
		asked[rel]++
		mu.Unlock()
		return !strings.HasPrefix(rel, ".git") && !strings.HasPrefix(rel, "build")
	}
	before := inotifyWatches(t)
	s := startConfig(t, cfg)
	waitFor(t, "the walk", func() bool { return strings.Contains(out.String(), "walked\n") })
	if got := inotifyWatches(t) - before; got != 4 {
		t.Errorf("the view holds %d watches after the walk, want 4 (the root, src, src/a, src/b)", got)
	}
	mustWrite(t, filepath.Join(root, "build/x/y/f"), "after")
	mustWrite(t, filepath.Join(root, "build/x/y/new"), "")
	mustWrite(t, fifo, "go\n")
	if st, _ := s.Wait(); st.ExitCode() != 0 || out.String() != "before\nwalked\nafter\nnew\n" {
		t.Fatalf("worker exit %d, read %q; want the change made outside the unwatched build/x/y", st.ExitCode(), out.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 10 {
		t.Errorf("Watches asked of %d directories (%v), want the 10 beneath the root", len(asked), asked)
	}
}

// limitEnv, set, runs TestWatchLimitIsSaid itself: in a user namespace of
// its own, whose limit of inotify watches the test may lower without
// touching the machine's.
const limitEnv = "FUSE_TEST_WATCH_LIMIT"

// TestWatchLimitIsSaid: with the user's limit of inotify watches reached,
// the view says so once, naming the directory and the sysctl, and goes on
// coherent: a change made outside in a directory it could not watch is
// seen at once.
func TestWatchLimitIsSaid(t *testing.T) {
	if os.Getenv(limitEnv) == "" {
		inUserNamespace(t)
		return
	}
	mustWrite(t, "/proc/sys/user/max_inotify_watches", "3") // the root, src, and one below
	root := workspace(t)
	for _, d := range []string{"src/a", "src/b", "src/c"} {
		mustMkdir(t, filepath.Join(root, d))
		mustWrite(t, filepath.Join(root, d, "f"), "before")
	}
	fifo := mustFifo(t)
	var out, log buffer
	cfg := testConfig(t, root, &recorder{}, &out, "find . >/dev/null; echo walked; read x < "+fifo+"; cat src/a/f src/b/f src/c/f")
	cfg.WatchedTimeout = time.Hour
	cfg.Logger = hclog.New(&hclog.LoggerOptions{Output: &log, Level: hclog.Warn})
	var mu sync.Mutex
	var told []string
	cfg.Unwatched = func(dir string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("Unwatched(%s, %v), want ENOSPC", dir, err)
		}
		told = append(told, dir)
	}
	s := startConfig(t, cfg)
	waitFor(t, "the walk", func() bool { return strings.Contains(out.String(), "walked\n") })
	for _, d := range []string{"src/a", "src/b", "src/c"} {
		mustWrite(t, filepath.Join(root, d, "f"), "after ")
	}
	mustWrite(t, fifo, "go\n")
	if st, _ := s.Wait(); st.ExitCode() != 0 || out.String() != "walked\nafter after after " {
		t.Fatalf("worker exit %d, read %q; want every change made outside", st.ExitCode(), out.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(told) != 1 || !strings.HasPrefix(told[0], filepath.Join(root, "src")+"/") {
		t.Errorf("Unwatched told %q, want once, a directory under src", told)
	}
	if got := log.String(); strings.Count(got, "whose watch the kernel refused") != 1 || !strings.Contains(got, "fs.inotify.max_user_watches") {
		t.Errorf("log %q; want one warning naming fs.inotify.max_user_watches", got)
	}
}

// inUserNamespace runs the calling test again, alone, as root of a user
// namespace of its own (unshare), with limitEnv set, and fails unless it
// passed there.
func inUserNamespace(t *testing.T) {
	t.Helper()
	needFuse(t)
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skipf("no unshare to make a user namespace: %v", err)
	}
	cmd := exec.Command(unshare, "-U", "-r", "-m", testBinary(t), "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), limitEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
		t.Fatalf("%s in a user namespace: %v\n%s", t.Name(), err, out)
	}
}

// inotifyWatches counts the inotify watches this process holds.
func inotifyWatches(t *testing.T) int {
	t.Helper()
	infos, err := filepath.Glob("/proc/self/fdinfo/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range infos {
		b, _ := os.ReadFile(p) // a descriptor closed meanwhile has none
		n += bytes.Count(b, []byte("\ninotify wd:"))
	}
	return n
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mustFifo is a new named pipe, for a worker to wait on.
func mustFifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
