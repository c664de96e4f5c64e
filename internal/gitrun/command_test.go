package gitrun_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/leasegate/leasegate/internal/gitrun"
)

// TestConfiguredCommandsDoNotRun: a repository that configures an
// fsmonitor hook, a clean filter, an external diff and a pager gets none of
// them run by a gitrun git, while plain git runs them.
func TestConfiguredCommandsDoNotRun(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	hook := filepath.Join(dir, "hook.sh")
	mustWrite(t, hook, "#!/bin/sh\necho ran >> "+marker+"\ncat\n", 0o755)
	mustWrite(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	mustWrite(t, filepath.Join(dir, ".gitattributes"), "a.txt filter=evil\n", 0o644)
	plain := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	plain("init", "-q")
	plain("add", "-A")
	plain("commit", "-qm", "init")
	for _, kv := range [][2]string{{"core.fsmonitor", hook}, {"filter.evil.clean", hook}, {"diff.external", hook}, {"core.pager", hook}} {
		plain("config", kv[0], kv[1])
	}
	os.Remove(marker)
	if err := os.Chtimes(filepath.Join(dir, "a.txt"), testTime, testTime); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"status", "--porcelain"}, {"ls-files", "-z"}, {"diff", "HEAD"}, {"diff-tree", "-r", "HEAD"}} {
		if out, err := gitrun.Command(context.Background(), dir, nil, args...).Output(); err != nil {
			t.Fatalf("gitrun git %v: %v\n%s", args, err, out)
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a configured command ran: %q", b)
	}
	plain("status", "--porcelain") // the same repository runs them under plain git
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("plain git ran no configured command (the test proves nothing): %v", err)
	}
}

func mustWrite(t *testing.T, p, body string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}

var testTime = mustTime("2001-02-03T04:05:06Z")

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
