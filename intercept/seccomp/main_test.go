//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"os"
	"testing"

	"github.com/leasegate/leasegate/intercept/seccomp"
	"go.uber.org/goleak"
)

// TestMain first lets the test binary act as the gate's helper (Start
// re-executes it) or as one of the small worker programs below, and only
// then runs the tests with a goroutine leak check.
func TestMain(m *testing.M) {
	seccomp.MaybeRunChild()
	if name := os.Getenv(helperEnv); name != "" {
		os.Exit(runHelper(name, os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}
