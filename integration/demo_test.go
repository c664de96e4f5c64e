package integration_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDemo: `leasegate demo`, the README's first command, plays the whole
// story on a fresh temporary repository, checks each step itself (it
// exits non-zero when one did not happen), announces its shortened
// windows against the contract's, and leaves nothing behind: no
// repository, no process.
func TestDemo(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "demo")
	cmd.Env, cmd.Dir = append(cleanEnv(), "TMPDIR="+tmp), tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("leasegate demo: %v\n%s", err, out)
	}
	for _, want := range []string{
		"windows shortened for the demo: retry after 3s (contract: 3m0s), stop-idle 2s (contract: 30s)",
		"src/app.go       alice  auto",                                             // the grant, in status
		"[bob] leasegate: contention: open-write of src/app.go, src/app_test.go: ", // the pair, contended
		"[bob] bob: my write went through",
		"bob's held write is granted at that moment (contention.woken), before its retry is due",
		"contention.woken     src/app.go",
		"lease.reclaimed",
		"[dave] dave: wrote docs/guide.md at once",
		"[frank] leasegate: BLOCKED: README.md is still held by erin after the retry",
		"# BLOCKED: frank cannot write README.md",
		"write denied with EBUSY",
		"[frank] frank: write failed, moving on",
		"by henry  — stop-idle",
		"by grace  — committed in",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("output:\n%s", out)
	}
	checkNothingLeft(t, tmp)
}

// TestDemoEndsWithItsReader: `leasegate demo | head -1` ends the demo
// early, and it still removes its repository and stops its workers and
// coordinator.
func TestDemoEndsWithItsReader(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "demo")
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = append(cleanEnv(), "TMPDIR="+tmp), tmp, w, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "leasegate demo in ") {
		t.Fatalf("first line %q, %v", line, err)
	}
	r.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("the demo went on for 30 s after its reader left")
	}
	checkNothingLeft(t, tmp)
}

// checkNothingLeft fails if a demo left a file in tmp or a process that
// names it.
func checkNothingLeft(t *testing.T, tmp string) {
	t.Helper()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the demo left %s in its temporary directory", left[0].Name())
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), tmp) {
			t.Errorf("a process outlived the demo: %s", bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		}
	}
}

// TestDemoMissingTmpdir: with TMPDIR naming no directory, the demo says
// that its temporary repository could not be made there, naming TMPDIR
// (it said only "stat /nonexistent: no such file or directory").
func TestDemoMissingTmpdir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	cmd := exec.Command(bin, "demo")
	cmd.Env, cmd.Dir = append(cleanEnv(), "TMPDIR="+missing), t.TempDir()
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "temporary directory "+missing+" (TMPDIR)") {
		t.Errorf("demo with TMPDIR=%s: %v, %s; want exit 1 naming TMPDIR", missing, err, out)
	}
}
