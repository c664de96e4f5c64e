//go:build linux

package integration_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// foreignProcfsArgs returns the unshare command line that runs a command
// in a pid namespace of its own that keeps the host's /proc (no
// --mount-proc), as `unshare --pid --fork` leaves it.
func foreignProcfsArgs(t *testing.T) []string {
	t.Helper()
	args := unshareArgs(t)
	kept := args[:0:0]
	for _, a := range args {
		if a != "--mount-proc" {
			kept = append(kept, a)
		}
	}
	return kept
}

// inForeignProcfs runs the CLI in such a namespace and returns its stderr
// and exit code.
func (r *repo) inForeignProcfs(t *testing.T, args ...string) (string, int) {
	t.Helper()
	argv := append(append(foreignProcfsArgs(t), bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = r.dir, r.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%v: %v", argv, err)
	}
	return stderr.String(), cmd.ProcessState.ExitCode()
}

// TestForeignProcfsIsSaid: a pid namespace that kept the host's /proc
// reads another process under every pid it names. A worker started there
// is refused at once with the cause and the fix (it used to start, and
// every write it made failed with EACCES, said nowhere), and a
// coordinator started there refuses to serve on evidence it cannot trust
// (it used to start, and took pid 2 of the namespace for the host's
// kthreadd when it judged an owner's liveness).
func TestForeignProcfsIsSaid(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "one\n"})
	stderr, code := r.inForeignProcfs(t, "run", "--as", "carol", "--", "sh", "-c", "echo two >> a.txt")
	if code != 2 || !strings.Contains(stderr, "/proc is not this pid namespace's") || !strings.Contains(stderr, "unshare --mount-proc") {
		t.Errorf("run in a namespace with the host's /proc: exit %d, stderr %q; want 2 naming the foreign /proc and the fix", code, stderr)
	}
	if got := r.read("a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q after the refused run, want it unchanged", got)
	}
	if _, ok := r.ownerView("carol"); ok {
		t.Errorf("carol registered by a run that was refused")
	}
	r.stopServer()

	stderr, code = r.inForeignProcfs(t, "acquire", "docs/**", "--as", "dave")
	if code != 5 || !strings.Contains(stderr, "could not start") || !strings.Contains(stderr, "/proc is not this pid namespace's") {
		t.Errorf("a coordinator started in a namespace with the host's /proc: exit %d, stderr %q; want 5 naming the foreign /proc", code, stderr)
	}
	if _, err := os.Stat(r.dir + "/.git/leasegate/coord.sock"); err == nil {
		t.Errorf("a coordinator serves after its start was refused")
	}
}
