//go:build linux && (amd64 || arm64)

package fuse_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/intercept/fuse"
	"github.com/leasegate/leasegate/intercept/intercepttest"
)

// needFuse skips a test on a machine that cannot mount the gate's view,
// and fails it under CI, which must be able to.
func needFuse(t *testing.T) {
	t.Helper()
	err := fuse.Available()
	if err == nil && os.Geteuid() != 0 {
		err = fuse.ErrMountRefused
	}
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI must run the FUSE gate: %v", err)
	}
	t.Skipf("no FUSE gate here: %v", err)
}

// recorder and buffer are the adapters' shared test Decider and output
// buffer.
type (
	recorder = intercepttest.Recorder
	buffer   = intercepttest.Buffer
)

// workspace is a fresh directory to mount the view over, symlinks
// resolved.
func workspace(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// start runs sh -c script in root under the gate and makes sure it is
// gone, and the supervisor closed, when the test ends.
func start(t *testing.T, root string, d intercept.Decider, out *buffer, script string, readOnly ...string) *fuse.Supervisor {
	t.Helper()
	return startConfig(t, testConfig(t, root, d, out, script, readOnly...))
}

// testConfig is the Config start uses: sh -c script in root, with the
// default timeouts.
func testConfig(t *testing.T, root string, d intercept.Decider, out *buffer, script string, readOnly ...string) fuse.Config {
	cfg := fuse.DefaultConfig()
	cfg.ReadOnly = readOnly
	cfg.Argv = []string{"sh", "-c", script}
	cfg.Dir, cfg.Root, cfg.Decider, cfg.Reap = root, root, d, true
	cfg.Stdout, cfg.Stderr = out, out
	cfg.KillPoll = 20 * time.Millisecond
	cfg.Logger = hclog.New(&hclog.LoggerOptions{Name: "fuse", Level: hclog.Info, Output: testWriter{t}})
	return cfg
}

// startConfig starts cfg's worker under the gate, as start does.
func startConfig(t *testing.T, cfg fuse.Config) *fuse.Supervisor {
	t.Helper()
	needFuse(t)
	s, err := fuse.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start(%q) = %v", cfg.Argv, err)
	}
	t.Cleanup(func() {
		s.KillTree()
		_, _ = s.Wait()
		_ = s.Close()
		<-s.Done()
	})
	return s
}

// run runs script under the gate to its end and returns its exit code and
// output.
func run(t *testing.T, root string, d intercept.Decider, script string) (int, string) {
	t.Helper()
	var out buffer
	s := start(t, root, d, &out, script)
	st, err := s.Wait()
	if err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	return st.ExitCode(), out.String()
}

// waitFor polls cond until it holds or 10 s have passed.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type testWriter struct{ tb testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.tb.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// deny answers every mutation of op with errno.
func deny(op intercept.Op, errno syscall.Errno) func(context.Context, intercept.Mutation) error {
	return func(_ context.Context, m intercept.Mutation) error {
		if m.Op == op {
			return errno
		}
		return nil
	}
}

// testBinary is the running test binary, which runs the test's workers.
func testBinary(tb testing.TB) string {
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return self
}
