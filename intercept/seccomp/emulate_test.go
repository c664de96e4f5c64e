//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept"
)

// TestEmulatedOpenUnderSignals: an open the supervisor emulates gives the
// worker the file it opened, even when signals interrupt the supervisor's
// threads while it installs the fd, as the Go runtime's preemption signals
// do on a busy machine. Each round opens with O_TRUNC, checks the fd is
// the file open for writing, and writes through it.
func TestEmulatedOpenUnderSignals(t *testing.T) {
	dir := tempDir(t)
	stop := signalThreads(t)
	res := runProgram(t, dir, intercept.AllowAll, "truncate-loop", filepath.Join(dir, "f"), "3000")
	stop()
	if res.code != 0 {
		t.Errorf("truncate-loop exited %d, want 0: %s", res.code, res.output)
	}
}

// signalThreads sends SIGURG, which the Go runtime takes as a request to
// preempt and otherwise ignores, to every thread of this process over and
// over until the returned stop is called or the test ends, with a pause
// between rounds that leaves the supervisor time to work.
func signalThreads(tb testing.TB) (stop func()) {
	tb.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		pid := os.Getpid()
		for {
			select {
			case <-done:
				return
			default:
			}
			tasks, err := os.ReadDir("/proc/self/task")
			if err != nil {
				tb.Error(err)
				return
			}
			for _, task := range tasks {
				if tid, err := strconv.Atoi(task.Name()); err == nil {
					_ = unix.Tgkill(pid, tid, unix.SIGURG)
				}
			}
			time.Sleep(100 * time.Microsecond)
		}
	})
	stop = sync.OnceFunc(func() {
		close(done)
		wg.Wait()
	})
	tb.Cleanup(stop) // also when the test ends early
	return stop
}
