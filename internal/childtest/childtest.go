// Package childtest starts the running test binary again as a child that
// only waits: a process to watch, signal or reap that every platform has
// (sleep and true are not programs on Windows). It is for tests only.
package childtest

import (
	"io"
	"os"
	"os/exec"
	"testing"
)

// idleEnv, set in a child's environment, makes Main wait instead of
// letting the tests run.
const idleEnv = "CHILDTEST_IDLE"

// Main turns the test binary into the idle child when Start started it:
// it waits for its stdin to close (when the test ends, or is killed) and
// exits. The TestMain of a package whose tests call Start calls it first.
func Main() {
	if os.Getenv(idleEnv) == "" {
		return
	}
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// Start starts the test binary as an idle child, which lives until the
// test kills it or ends: then it is killed and reaped.
func Start(tb testing.TB) *exec.Cmd {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatalf("the test binary: %v", err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), idleEnv+"=1")
	if _, err := cmd.StdinPipe(); err != nil {
		tb.Fatalf("stdin pipe: %v", err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start the test binary as a child: %v", err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// Reaped returns the pid of a child that has ended and been reaped: a pid
// that names no process (until the system gives it to another).
func Reaped(tb testing.TB) int {
	tb.Helper()
	cmd := Start(tb)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return cmd.Process.Pid
}
