//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/intercept/intercepttest"
	"github.com/leasegate/leasegate/intercept/seccomp"
)

// recorder and buffer are the adapters' shared test Decider and output
// buffer.
type (
	recorder = intercepttest.Recorder
	buffer   = intercepttest.Buffer
)

// result is how a gated run ended.
type result struct {
	code   int
	state  string // e.g. "exit status 1", "signal: killed"
	output string
}

// config is the test default: worker in dir, output into out, logs to t.
func config(tb testing.TB, dir string, d intercept.Decider, out *buffer, argv ...string) seccomp.Config {
	cfg := seccomp.DefaultConfig()
	cfg.Argv = argv
	cfg.Dir = dir
	cfg.Decider = d
	cfg.Stdout, cfg.Stderr = out, out
	cfg.ValidityPoll = 100 * time.Millisecond
	cfg.Logger = hclog.New(&hclog.LoggerOptions{
		Name: "seccomp", Level: hclog.Info, Output: testWriter{tb},
	})
	return cfg
}

// mustStart starts a gated worker and makes sure it is gone, and the
// supervisor closed, when the test ends.
func mustStart(tb testing.TB, cfg seccomp.Config) *seccomp.Supervisor {
	tb.Helper()
	s, err := seccomp.Start(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("Start(%q) = %v", cfg.Argv, err)
	}
	tb.Cleanup(func() {
		_ = killGroup(s.Pid())
		s.Wait()
		s.Close()
	})
	return s
}

// run runs argv gated in dir until every gated process is gone.
func run(tb testing.TB, dir string, d intercept.Decider, argv ...string) result {
	tb.Helper()
	out := &buffer{}
	s := mustStart(tb, config(tb, dir, d, out, argv...))
	state, err := s.Wait()
	if err != nil {
		tb.Fatalf("Wait() = %v", err)
	}
	mustDone(tb, s, 10*time.Second)
	return result{code: state.ExitCode(), state: state.String(), output: out.String()}
}

// sh runs a shell script gated in dir.
func sh(tb testing.TB, dir string, d intercept.Decider, script string) result {
	tb.Helper()
	return run(tb, dir, d, "sh", "-c", script)
}

// mustDone waits until the supervisor has no gated process left.
func mustDone(tb testing.TB, s *seccomp.Supervisor, within time.Duration) {
	tb.Helper()
	select {
	case <-s.Done():
	case <-time.After(within):
		tb.Fatalf("Done() not closed %s after the worker exited", within)
	}
}

// tempDir is t.TempDir with its symlinks resolved, as reported paths are.
func tempDir(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// mustWrite creates files (name → content) under dir; a name ending in
// "/" is a directory, "->target" a symlink.
func mustWrite(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		content := files[name]
		p := filepath.Join(dir, name)
		var err error
		switch {
		case strings.HasSuffix(name, "/"):
			err = os.MkdirAll(p, 0o755)
		case strings.HasPrefix(content, "->"):
			err = os.Symlink(strings.TrimPrefix(content, "->"), p)
		default:
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// testWriter sends log lines to the test log.
type testWriter struct{ tb testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// format lists mutations one per line for failure messages.
func format(ms []intercept.Mutation) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "\n  %s %s %q (pid %d tid %d)", m.Op, m.Syscall, m.Paths, m.PID, m.TID)
	}
	return b.String()
}

// killGroup SIGKILLs a worker's whole process group.
func killGroup(pgid int) error { return syscall.Kill(-pgid, syscall.SIGKILL) }

// denyUnder answers errno for mutations under dir and allows the rest.
func denyUnder(dir string, errno syscall.Errno) func(context.Context, intercept.Mutation) error {
	return func(_ context.Context, m intercept.Mutation) error {
		if intercepttest.Within(m.Paths[0], []string{dir}) {
			return errno
		}
		return nil
	}
}

// mustStat describes a file's content and mode.
func mustStat(tb testing.TB, p string) string {
	tb.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s %q", fi.Mode(), mustRead(tb, p))
}

func mustRead(tb testing.TB, p string) string {
	tb.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func assertMissing(tb testing.TB, p string) {
	tb.Helper()
	if _, err := os.Lstat(p); err == nil {
		tb.Errorf("%s exists, want it missing", p)
	}
}

func assertExists(tb testing.TB, p string) {
	tb.Helper()
	if _, err := os.Lstat(p); err != nil {
		tb.Errorf("%s: %v, want it to exist", p, err)
	}
}

// mustReceive waits for a value on c.
func mustReceive[T any](tb testing.TB, c <-chan T, what string) T {
	tb.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		tb.Fatalf("no %s within 10s", what)
	}
	var zero T
	return zero
}
