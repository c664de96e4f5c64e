package sidecar

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/intercept/spawn"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/workspace"
)

// ExitAborted is run's exit status when an operator aborted the worker
// through `leasegate resolve ID --abort`.
const ExitAborted = 4

// Sidecar is one running `leasegate run`.
type Sidecar struct {
	cfg  Config
	log  hclog.Logger
	rule *workspace.Rule
	// aliases are the bind mounts that show the workspace's directories at
	// other paths, read once at start; Decide takes their paths for the
	// workspace's.
	aliases []workspace.Alias
	// ruleBroken: leasegate.json was last found not to load (said once;
	// only the heartbeat loop reads and writes it).
	ruleBroken bool
	owner      gate.Owner
	sess       *api.Session // the owner's session with the coordinator, from register on
	sup        supervisor

	regMu sync.Mutex // one registerAgain at a time

	haltMu  sync.Mutex
	halts   int  // blocked mutations currently halting the worker
	aborted bool // an operator aborted the worker

	commits chan struct{} // hints that the worker updated a git ref
	held    *held         // leases granted to this worker, for covered mutations
	// leased mirrors every owner's active leases from leasedSeq on.
	leased    *leased
	leasedSeq uint64
	// unwatched is the directory whose watch the FUSE view's kernel
	// refused at its limit, for reportUnwatched.
	unwatched chan string
}

// Run wraps the worker and returns its exit status once it and every
// process it spawned have ended and its leases are released.
func Run(ctx context.Context, cfg Config) (int, error) {
	if err := cfg.Validate(); err != nil {
		return 0, fmt.Errorf("run: %w", err)
	}
	cfg.setDefaults()
	s := &Sidecar{cfg: cfg, log: cfg.Logger.Named("sidecar"), commits: make(chan struct{}, 1), held: newHeld(cfg.Clock), leased: newLeased(),
		unwatched: make(chan string, 1)}
	rule, err := workspace.NewRule(cfg.Workspace, cfg.Logger)
	if err != nil {
		return 0, err
	}
	defer rule.Close()
	s.rule = rule
	if s.aliases, err = cfg.Workspace.Aliases(); err != nil {
		return 0, fmt.Errorf("run: the mount table, for the workspace's other paths: %w", err)
	}
	if err := s.register(ctx); err != nil {
		return 0, err
	}
	s.beat(ctx)
	s.seedLeased(ctx)
	if err := s.claimInherited(ctx); err != nil {
		s.end(0, err)
		if s.isAborted() {
			return ExitAborted, nil
		}
		return 0, err
	}
	code, err := s.supervise(ctx)
	s.end(code, err)
	return code, err
}

func (s *Sidecar) register(ctx context.Context) error {
	start, err := liveness.ProcessStart(os.Getpid())
	if err != nil {
		return fmt.Errorf("run: own process start time: %w", err)
	}
	host, _ := os.Hostname()
	s.owner = gate.Owner{Name: s.cfg.Name, Host: host, PID: os.Getpid(), StartTime: start}
	if s.sess, err = api.NewSession(ctx, s.cfg.Client, s.registration()); err != nil {
		return fmt.Errorf("run: register %s: %w", gate.ShownPath(s.cfg.Name), err)
	}
	return nil
}

// supervise starts the worker under the gate with the sidecar's loops and
// waits until every gated process is gone.
func (s *Sidecar) supervise(ctx context.Context) (int, error) {
	env := s.cfg.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)], envname.As+"="+s.cfg.Name, envname.Workspace+"="+s.cfg.Workspace.Root,
		envname.Sidecar+"="+strconv.Itoa(os.Getpid()))
	cmd := spawn.Command{Argv: s.cfg.Argv, Env: env, Dir: s.cfg.Dir, Stdin: s.cfg.Stdin, Stdout: s.cfg.Stdout, Stderr: s.cfg.Stderr}
	// A worker whose sidecar dies could not write anyway (its gated
	// syscalls fail with ENOSYS once the listener is gone, its view with
	// ENOTCONN once no server reads it): its whole tree ends with the
	// sidecar, even one killed with SIGKILL, through the reaper between
	// them.
	cmd.Reap = true
	// The gate outlives ctx: a cancelled run (SIGINT, SIGTERM) forwards the
	// signal and keeps gating until the worker has gone.
	sup, err := s.startGate(context.WithoutCancel(ctx), cmd)
	if err != nil {
		return 0, fmt.Errorf("run: %w", err)
	}
	s.sup = sup
	restore, onTerminal := foreground(sup.Pid())
	defer restore()
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	loops := []func(context.Context){s.heartbeats, s.notices, s.watchStopped, s.watchCommits, s.watchLeftRunning, s.reportUnwatched}
	if onTerminal {
		loops = append(loops, s.followSuspend)
	}
	for _, loop := range loops {
		wg.Add(1)
		go func() { defer wg.Done(); loop(bg) }()
	}
	code, werr := s.wait(ctx)
	cancel()
	wg.Wait()
	return code, werr
}

// wait returns the worker's exit status after the whole gated tree ended.
func (s *Sidecar) wait(ctx context.Context) (int, error) {
	select {
	case <-s.sup.Exited():
	case <-ctx.Done():
		s.terminate()
	}
	st, err := s.sup.Wait()
	code := exitCodeOf(st)
	select {
	case <-s.sup.Done():
	case <-ctx.Done():
		// Descendants that outlive a cancelled worker are not waited for.
		_ = s.sup.Close()
	}
	s.haltMu.Lock()
	defer s.haltMu.Unlock()
	if s.aborted {
		return ExitAborted, nil
	}
	return code, err
}

// terminateGrace is how long a cancelled worker has to exit after SIGTERM.
const terminateGrace = 5 * time.Second

// terminate forwards a cancellation to the worker's process group: SIGTERM
// (and SIGCONT, in case a blocker halted it), then SIGKILL after a grace
// period.
func (s *Sidecar) terminate() {
	terminateGroup(s.sup.Pid())
	t := time.NewTimer(terminateGrace)
	defer t.Stop()
	select {
	case <-s.sup.Exited():
	case <-t.C:
		// Without a word the exit status 137 would be all the user saw of
		// a worker that ignored SIGTERM.
		s.notef("the worker (pid %d) did not exit within %s of SIGTERM: it and the processes it started are killed with SIGKILL",
			s.sup.Pid(), terminateGrace)
		s.sup.KillTree()
		<-s.sup.Exited()
	}
}

// exitCodeOf is a shell's view of an exit status: 128+N for a signal.
func exitCodeOf(st *os.ProcessState) int {
	if st == nil {
		return 1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// end releases the worker's auto leases; it runs even when the context is
// already cancelled (Ctrl-C), with a fresh deadline.
func (s *Sidecar) end(code int, err error) {
	why := fmt.Sprintf("worker exited with status %d", code)
	if err != nil {
		why = "worker failed: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), endTimeout)
	defer cancel()
	r, e := s.sess.End(ctx, why)
	if e != nil {
		s.notef("could not release leases of %s: %v (a dead owner's leases are reclaimed anyway)", s.cfg.Name, e)
		return
	}
	s.log.Info("worker ended", "owner", s.cfg.Name, "released", r, "why", why)
}

// halt stops the worker's process group while a mutation is blocked; the
// last resume continues it.
func (s *Sidecar) halt() {
	s.haltMu.Lock()
	defer s.haltMu.Unlock()
	s.halts++
	if s.halts == 1 && s.sup != nil { // nil: no worker yet
		stopGroup(s.sup.Pid())
	}
}

func (s *Sidecar) resume() {
	s.haltMu.Lock()
	defer s.haltMu.Unlock()
	s.halts--
	if s.halts == 0 && !s.aborted && s.sup != nil {
		continueGroup(s.sup.Pid())
	}
}

func (s *Sidecar) halted() bool {
	s.haltMu.Lock()
	defer s.haltMu.Unlock()
	return s.halts > 0
}

// abort ends the worker's tree for an operator's --abort. The group is
// stopped first: the kill goes through the reaper and lands a moment later,
// and a stop is taken before the aborted write's answer returns to user
// space, so the worker never runs on after it.
func (s *Sidecar) abort() {
	s.haltMu.Lock()
	defer s.haltMu.Unlock()
	s.aborted = true
	if s.sup != nil { // nil: the worker was never started
		stopGroup(s.sup.Pid())
		s.sup.KillTree()
	}
}

func (s *Sidecar) isAborted() bool {
	s.haltMu.Lock()
	defer s.haltMu.Unlock()
	return s.aborted
}

func (s *Sidecar) notef(format string, args ...any) {
	fmt.Fprintf(s.cfg.Notices, "leasegate: "+format+"\n", args...)
}

// holderNotef writes a notice from the event stream where it cannot
// corrupt the worker's screen (Config.HolderNotices), stamped with when it
// was sent.
func (s *Sidecar) holderNotef(at time.Time, format string, args ...any) {
	fmt.Fprintf(s.cfg.HolderNotices, "%s leasegate: %s: "+format+"\n", append([]any{at.UTC().Format(time.RFC3339), s.cfg.Name}, args...)...)
}
