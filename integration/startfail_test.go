package integration_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// saidAtOnce is how soon a command must report that the coordinator
// cannot start. The cause comes over a pipe within milliseconds; the
// bound leaves a loaded machine room and is far below the 10 s a
// starter used to wait before saying only "did not answer".
const saidAtOnce = 5 * time.Second

// startFails runs args in r, expects exit 5 within saidAtOnce with every
// want in stderr, and returns stderr.
func startFails(t *testing.T, r *repo, want []string, args ...string) string {
	t.Helper()
	start := time.Now()
	out, errs, code := r.lg(args...)
	took := time.Since(start)
	if code != 5 {
		t.Fatalf("leasegate %v exited %d, want 5\nstdout: %s\nstderr: %s", args, code, out, errs)
	}
	if took > saidAtOnce {
		t.Errorf("leasegate %v took %s to fail, want under %s: %s", args, took, saidAtOnce, errs)
	}
	for _, w := range want {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr does not say %q:\n%s", w, errs)
		}
	}
	t.Logf("failed in %s: %s", took.Round(time.Millisecond), strings.TrimSpace(errs))
	return errs
}

// TestStartFailureCorruptLedger: a ledger whose pages are garbage makes
// the starting command say so at once, and serve.log keeps it.
func TestStartFailureCorruptLedger(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "a.txt", "--as", "alice")
	r.stopServer()
	ledger := filepath.Join(r.dir, ".git", "leasegate", "ledger.db")
	f, err := os.OpenFile(ledger, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("garbage!", 2048)), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Cleanup(func() { killServe(r.dir) })
	startFails(t, r, []string{"could not start", ledger, "serve.log"}, "acquire", "a.txt", "--as", "bob")
	log, err := os.ReadFile(filepath.Join(r.dir, ".git", "leasegate", "serve.log"))
	if err != nil || !strings.Contains(string(log), ledger) {
		t.Errorf("serve.log does not keep the cause (%v):\n%s", err, log)
	}
}

// TestStartFailureAnotherCoordinator: `serve` for a workspace another
// coordinator serves says which one, at once.
func TestStartFailureAnotherCoordinator(t *testing.T) {
	r := newRepo(t, nil)
	startFails(t, r, []string{"another coordinator, pid " + strconv.Itoa(r.server.Process.Pid) + ", serves this workspace"},
		"serve", "--workspace", r.dir, "--idle-exit", "0")
}

// TestStartFailureFullDisk: on a full file system the starting command
// says "no space left on device" at once: for a new workspace (without
// naming serve.log, which the coordinator could not write), and for one
// whose ledger has to be made again.
func TestStartFailureFullDisk(t *testing.T) {
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v: %s", err, out)
	}
	t.Cleanup(func() { detachMount(mnt) })
	r := bareRepoAt(t, filepath.Join(mnt, "ws"))
	t.Cleanup(func() { killServe(r.dir) })
	fill := filepath.Join(mnt, "fill")
	fillUp(t, fill)
	errs := startFails(t, r, []string{"could not start", "no space left on device"}, "acquire", "README.md", "--as", "alice")
	if log, _ := os.ReadFile(filepath.Join(r.dir, ".git", "leasegate", "serve.log")); len(log) == 0 && strings.Contains(errs, "serve.log") {
		t.Errorf("stderr sends the user to serve.log, which the full disk left empty:\n%s", errs)
	}

	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	r.log = &bytes.Buffer{}
	r.startServer(retryAfter, idleAfter)
	r.mustLG("acquire", "README.md", "--as", "alice")
	r.stopServer() // waits for it: its files are closed
	state := filepath.Join(r.dir, ".git", "leasegate")
	ledgers, _ := filepath.Glob(filepath.Join(state, "ledger.db*"))
	for _, p := range ledgers {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	fillUp(t, fill)
	startFails(t, r, []string{"could not start", filepath.Join(state, "ledger.db"), "no space left on device"},
		"acquire", "README.md", "--as", "alice")
}

// fillUp writes the file until its file system is full.
func fillUp(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			return
		}
	}
}

// TestStartFailureSocketPathTooLong: where a long socket path cannot be
// reached by a short name (no /proc, in a mount namespace of its own),
// the coordinator says so at once, naming the path.
func TestStartFailureSocketPathTooLong(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare not installed")
	}
	r := deepRepo(t, 200)
	sock := filepath.Join(r.dir, ".git", "leasegate", "coord.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "-m", "sh", "-c",
		`mount -t tmpfs none /proc || exit 77; exec "$0" serve --workspace "$1" --idle-exit 0`, bin, r.dir)
	cmd.Env = r.env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	code := cmd.ProcessState.ExitCode()
	if code == 77 || (err != nil && code == 1 && strings.Contains(string(out), "unshare")) {
		t.Skipf("cannot hide /proc in a mount namespace (needs root): %s", out)
	}
	if code != 5 || !strings.Contains(string(out), "socket path too long") || !strings.Contains(string(out), sock) {
		t.Fatalf("serve without /proc at a %d-byte socket path: exit %d, want 5 naming the path:\n%s", len(sock), code, out)
	}
	if took > saidAtOnce {
		t.Errorf("serve took %s to fail, want under %s", took, saidAtOnce)
	}
	t.Logf("failed in %s: %s", took.Round(time.Millisecond), strings.TrimSpace(string(out)))
}
