package bolt_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// checkKilled fails the test unless the child ended as Process.Kill ends
// it on Windows: TerminateProcess with exit code 1 (which a child that
// exits by itself with 1 would also show; what it stored is checked next).
func checkKilled(t *testing.T, err error, stderr *bytes.Buffer) {
	t.Helper()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("child Wait() = %v, want killed (exit code 1); stderr:\n%s", err, stderr)
	}
}

// privateMode is the mode Stat shows on Windows of a file the ledger
// creates 0600: Windows keeps only a read-only bit, so a writable file
// reads 0666 whatever its ACL.
const privateMode os.FileMode = 0o666
