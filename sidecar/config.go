package sidecar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/workspace"
)

// DefaultStopPoll is how often the worker's process tree is checked for
// being stopped (Ctrl-Z, SIGSTOP). A stopped tree opens the stop-idle
// window; the check reads /proc for each process of the tree.
const DefaultStopPoll = time.Second

// Coordinator is what the sidecar needs of the workspace's coordinator;
// every leasegate.Service has it. Gated mutations run the contention
// protocol (api.Gate) over it.
type Coordinator interface {
	api.Mutator
	api.Owner
	ReleaseCommitted(ctx context.Context, name string) ([]gate.Lease, error)
	Status(ctx context.Context) (leasegate.Status, error)
	Events(ctx context.Context, after uint64, follow bool, fn func(gate.Event) error) error
	ReportUngated(ctx context.Context, w leasegate.UngatedWrite) error
}

var _ Coordinator = (leasegate.Service)(nil)

// Gate names how the sidecar intercepts its worker's mutations.
type Gate string

// The gates `leasegate run --gate` offers.
const (
	// GateSeccomp holds each write-like syscall in the kernel (seccomp
	// user notification): unprivileged, the default.
	GateSeccomp Gate = "seccomp"
	// GateFuse mounts a gated FUSE view over the workspace in the
	// worker's own mount namespace: every mutation, io_uring's included,
	// is made by the sidecar after it is granted. Needs root and
	// /dev/fuse.
	GateFuse Gate = "fuse"
)

// Config configures one wrapped worker.
type Config struct {
	// Gate is how the worker's mutations are intercepted. Default
	// GateSeccomp.
	Gate Gate
	// FuseCache is, under GateFuse, how long the kernel keeps the names
	// and attributes it looked up through the worker's view, and names it
	// found missing, even when the view's watch of the files beneath
	// missed a change (fuse.Config's EntryTimeout and AttrTimeout).
	// Default 0: only what the watch keeps coherent is kept, for
	// fuse.DefaultWatchedTimeout, so a change made outside the view
	// (another worker, the host) is seen as soon as its event is read;
	// longer spares the lookups of missing names too, and a change the
	// watch missed, or a name created outside, can be seen that much
	// later.
	FuseCache time.Duration
	// Name is the owner name (`--as`). Required.
	Name string
	// Argv is the worker's command line. Required.
	Argv []string
	// Env is the worker's environment; nil means the sidecar's own.
	// LEASEGATE_AS, LEASEGATE_WORKSPACE and LEASEGATE_SIDECAR (the
	// sidecar's pid, which hooks run by the worker look for) are always
	// added.
	Env []string
	// Dir is the worker's working directory; "" means the current one.
	Dir string
	// Stdin, Stdout and Stderr are the worker's streams.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Notices receives the sidecar's own messages for the person running
	// the worker: contention heartbeats, blockers, reminders, evictions.
	// Nil means Stderr.
	Notices io.Writer
	// HolderNotices receives the notices the coordinator sends this owner
	// from the event stream (a write blocked on its lease, reminders,
	// evictions, reclaims). They come at any moment, so on a terminal they
	// must not be written into the worker's screen. Nil means Notices.
	HolderNotices io.Writer
	// Countdown shows, while a write waits for its retry, what it waits
	// for and a live countdown on Notices: one line, redrawn each second,
	// cleared when the write is decided. Only for a terminal.
	Countdown bool
	// TerminalWidth is the width in columns of the terminal the countdown
	// is drawn on, asked at each redraw (a terminal can be resized); the
	// line is cut to fit. Nil, or an answer of 0, leaves it whole.
	TerminalWidth func() int
	// Clock times the countdown and the heartbeats; nil means the real
	// clock.
	Clock clock.Clock
	// Workspace is the workspace being gated. Required.
	Workspace *workspace.Workspace
	// Client talks to the workspace's coordinator: an *api.Client over
	// its socket. Required.
	Client Coordinator
	// Restart starts the workspace's coordinator when a heartbeat finds
	// it gone, and returns once it answers. Nil leaves that to someone
	// else; gated writes wait and retry until a coordinator answers either
	// way.
	Restart func(ctx context.Context) error
	// Windows are the retry and stop-idle windows the worker names
	// (run's --retry-after and --idle-after); they travel with its
	// registration. Zero fields leave the coordinator's default.
	Windows gate.Windows
	// HeartbeatEvery is the owner heartbeat interval. Default
	// liveness.DefaultHeartbeatInterval (2 s).
	HeartbeatEvery time.Duration
	// StopPoll is the stopped-tree check interval. Default 1 s.
	StopPoll time.Duration
	// Logger; nil means no logging.
	Logger hclog.Logger
}

// Validate reports what is missing.
func (c *Config) Validate() error {
	var errs []error
	if c.Name == "" {
		errs = append(errs, errors.New("owner name is required (--as NAME)"))
	}
	if len(c.Argv) == 0 {
		errs = append(errs, errors.New("a worker command is required"))
	}
	if c.Workspace == nil || c.Client == nil {
		errs = append(errs, errors.New("workspace and client are required"))
	}
	if c.FuseCache < 0 || (c.FuseCache > 0 && c.Gate != GateFuse) {
		errs = append(errs, fmt.Errorf("fuse cache %s: want zero or more, with the fuse gate", c.FuseCache))
	}
	if c.Gate != "" && c.Gate != GateSeccomp && c.Gate != GateFuse {
		errs = append(errs, fmt.Errorf("gate %q: want %s or %s", c.Gate, GateSeccomp, GateFuse))
	}
	errs = append(errs, c.Windows.Validate())
	return errors.Join(errs...)
}

func (c *Config) setDefaults() {
	if c.Gate == "" {
		c.Gate = GateSeccomp
	}
	if c.HeartbeatEvery == 0 {
		c.HeartbeatEvery = liveness.DefaultHeartbeatInterval
	}
	if c.StopPoll == 0 {
		c.StopPoll = DefaultStopPoll
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
	if c.Notices == nil {
		c.Notices = c.Stderr
	}
	if c.Notices == nil {
		c.Notices = io.Discard
	}
	if c.HolderNotices == nil {
		c.HolderNotices = c.Notices
	}
	if c.Clock == nil {
		c.Clock = clock.New()
	}
}
