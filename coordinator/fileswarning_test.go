package coordinator_test

import (
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/liveness"
)

// TestStatusNamesTheFilesLimit: once an open of the coordinator's failed
// for want of a descriptor, status warns of it, naming RLIMIT_NOFILE and
// its value (writes were held and the limit was named nowhere).
func TestStatusNamesTheFilesLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fds := liveness.NewDescriptors(32, 256, nil)
		e := startEnv(t, func(c *coordinator.Config) { c.Descriptors = fds })
		if w := mustStatus(t, e.c).FilesWarning; w != "" {
			t.Fatalf("status's files_warning before any EMFILE = %q, want none", w)
		}
		fds.Note(&fs.PathError{Op: "open", Path: "/proc/7/stat", Err: syscall.EMFILE})
		if w := mustStatus(t, e.c).FilesWarning; !strings.Contains(w, "RLIMIT_NOFILE 256") {
			t.Fatalf("status's files_warning after EMFILE = %q, want it to name RLIMIT_NOFILE 256", w)
		}
	})
}
