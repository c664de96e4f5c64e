package hooks_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// leasegateBin is the leasegate binary the tests run as real processes,
// built once.
var leasegateBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lgbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	leasegateBin = filepath.Join(dir, "leasegate")
	// install's records of the files it changed go here, not to the
	// user's state directory.
	_ = os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	// A static build, as leasegate should ship: a cgo build loads libc
	// and starts cgo's runtime, 2 to 4 ms more on every hook call.
	build := exec.Command("go", "build", "-o", leasegateBin, "github.com/leasegate/leasegate/cmd/leasegate")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build leasegate: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}
