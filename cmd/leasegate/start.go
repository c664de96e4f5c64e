package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/intercept/spawn"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/workspace"
)

// startWait bounds how long a starting command waits for the coordinator
// to serve or to say why it cannot.
const startWait = 10 * time.Second

// startServer starts `leasegate serve` for ws in the background and waits
// until it serves. A coordinator that cannot start says why over a pipe
// (see startReport), and the cause is returned at once as a *startError.
// Racing starters are fine: one coordinator takes the workspace's serve
// lock, the others say so and their starters wait for it.
func (c *common) startServer(ctx context.Context, ws *workspace.Workspace, cl *api.Client) error {
	if err := ws.EnsureStateDir(); err != nil {
		return &startError{err}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	logPath := filepath.Join(ws.StateDir, "serve.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return &startError{fmt.Errorf("open its log: %w", err)}
	}
	defer logf.Close()
	log := startLog{path: logPath, f: logf, size: fileSize(logf)}
	pr, pw, err := startPipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	// The coordinator started here has the contract's windows: this
	// command's own travel with its registration, and are not made every
	// other owner's default.
	cmd := exec.Command(self, "serve", "--workspace", ws.Root, "--log-level", "info")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, logf, logf
	cmd.SysProcAttr = detached()
	if err := passReady(cmd, pw); err != nil {
		pw.Close()
		return fmt.Errorf("start coordinator: %w", err)
	}
	cmd.Env = withoutEnv(os.Environ(), envname.SpawnHelper, envname.RetryAfter, envname.IdleAfter)
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return fmt.Errorf("start coordinator: %w", spawn.ProcLimited(err))
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }() // ends with the coordinator; reaps it
	stop := context.AfterFunc(ctx, func() { _ = pr.SetReadDeadline(time.Now()) })
	defer stop()
	rep, err := readStartReport(pr, startWait)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("%w: started a coordinator (pid %d) but %v%s", api.ErrUnavailable, cmd.Process.Pid, err, log.see())
	case rep.Ready:
		warnPidNS()
		return c.waitHealthy(ctx, cl, fmt.Sprintf("the coordinator (pid %d)", rep.PID), logPath)
	case rep.Serving:
		// Another starter's coordinator won the workspace; it may still be
		// replaying its ledger.
		return c.waitHealthy(ctx, cl, serving(rep.ServingPID), logPath)
	case rep.Error != "":
		return &startError{fmt.Errorf("%s%s", rep.Error, log.see())}
	}
	select {
	case <-exited:
		return &startError{fmt.Errorf("it exited (%v) before serving%s", cmd.ProcessState, log.see())}
	case <-c.clk().After(time.Second):
		return &startError{fmt.Errorf("it closed its start report without a word%s", log.see())}
	}
}

// startLog is the log a started coordinator writes to, with its size
// before the start: a failure names the log only when the coordinator
// wrote something there, since on a full disk it cannot, and "see
// serve.log" would send the user to a file without the cause.
type startLog struct {
	path string
	f    *os.File
	size int64
}

// see is the pointer to the log for a failure's message: "; see PATH"
// when the log grew since the start, else "".
func (l startLog) see() string {
	if fileSize(l.f) <= l.size {
		return ""
	}
	return "; see " + l.path
}

// fileSize is f's size, 0 when it cannot be read.
func fileSize(f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

func serving(pid int) string {
	if pid == 0 {
		return "the coordinator another command started"
	}
	return fmt.Sprintf("the coordinator (pid %d) another command started", pid)
}
