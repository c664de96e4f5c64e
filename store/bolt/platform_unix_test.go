//go:build !windows

package bolt_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// checkKilled fails the test unless the child ended by SIGKILL.
func checkKilled(t *testing.T, err error, stderr *bytes.Buffer) {
	t.Helper()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("child Wait() = %v, want killed; stderr:\n%s", err, stderr)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want SIGKILL; stderr:\n%s", err, stderr)
	}
}

// privateMode is the mode Stat shows of a file the ledger creates for its
// owner alone.
const privateMode os.FileMode = 0o600
