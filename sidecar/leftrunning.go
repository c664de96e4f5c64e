package sidecar

import (
	"context"
	"time"
)

// leftRunningEvery is how often run looks whether the worker itself has
// exited while processes it started run on. The worker must be seen gone
// at two looks in a row, so a shell's last children, which end a moment
// after it, get at least this long before run says anything.
const leftRunningEvery = time.Second

// watchLeftRunning says once that the worker has exited while processes
// it started (a daemon, a background job) run on: they keep run, and its
// leases, until they end, and without a word run would seem to hang after
// the agent has gone. It ends with ctx or once the whole tree has ended.
func (s *Sidecar) watchLeftRunning(ctx context.Context) {
	t := s.cfg.Clock.Ticker(leftRunningEvery)
	defer t.Stop()
	worker, gone := s.sup.Pid(), false
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.sup.Done():
			return
		case <-t.C:
		}
		if !processGone(worker) {
			continue
		}
		if gone {
			s.notef("the worker (pid %d) has exited; processes it started still run, and run waits for them with its leases "+
				"until they end (Ctrl-C or SIGTERM ends them: SIGTERM, then SIGKILL after %s)", worker, terminateGrace)
			return
		}
		gone = true
	}
}
