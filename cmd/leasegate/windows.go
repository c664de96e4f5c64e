package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/envname"
)

// windowFlag is --retry-after or --idle-after: a window validated where it
// is parsed, from the flag or else the environment, remembering which.
// A value the contract does not allow (longer than its window, zero or
// negative) is a usage error of the command, from either place.
type windowFlag struct {
	name   string
	w      *gate.Window
	valid  func(d time.Duration, required bool) error
	envErr error // an unusable environment value, reported unless the flag is given
}

// registerWindows adds --retry-after and --idle-after to fs, filling ws
// from the flags or the environment; windows named by neither stay zero.
func registerWindows(fs *flag.FlagSet, ws *gate.Windows) {
	fs.Var(newWindowFlag("retry-after", &ws.Retry, envname.RetryAfter, gate.ValidRetryAfter), "retry-after", fmt.Sprintf(
		"wait this `duration` before the one retry of this owner's denied mutations (env %s); "+
			"at most the contract's %s; none named: the coordinator's (the contract's unless serve names one); longer, zero or negative is a usage error", envname.RetryAfter, gate.DefaultRetryAfter))
	fs.Var(newWindowFlag("idle-after", &ws.Idle, envname.IdleAfter, gate.ValidIdleAfter), "idle-after", fmt.Sprintf(
		"release this owner's leases this `duration` after it stopped, unless it writes again (env %s); "+
			"at most the contract's %s; none named: the coordinator's (the contract's unless serve names one); longer, zero or negative is a usage error", envname.IdleAfter, gate.DefaultIdleAfter))
}

// serveWindowsUsage rewords the windows' help for serve, whose windows
// are the default of owners that name none.
func serveWindowsUsage(fs *flag.FlagSet) {
	fs.Lookup("retry-after").Usage = fmt.Sprintf("wait this `duration` before the one retry of a denied mutation, for owners that name none (env %s); "+
		"default and most the contract's %s; longer, zero or negative is a usage error", envname.RetryAfter, gate.DefaultRetryAfter)
	fs.Lookup("idle-after").Usage = fmt.Sprintf("release a stopped owner's leases this `duration` after its stop, for owners that name none (env %s); "+
		"default and most the contract's %s; longer, zero or negative is a usage error", envname.IdleAfter, gate.DefaultIdleAfter)
}

func newWindowFlag(name string, w *gate.Window, env string, valid func(time.Duration, bool) error) *windowFlag {
	f := &windowFlag{name: name, w: w, valid: valid}
	if v := os.Getenv(env); v != "" {
		if d, err := f.parse(v); err != nil {
			f.envErr = fmt.Errorf("%s=%q: %w", env, v, err)
		} else {
			*w = gate.Window{After: d, From: gate.FromEnv}
		}
	}
	return f
}

func (f *windowFlag) parse(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: want a duration like 5s: %w", f.name, err)
	}
	return d, f.valid(d, true)
}

func (f *windowFlag) Set(v string) error {
	d, err := f.parse(v)
	if err != nil {
		return err
	}
	*f.w, f.envErr = gate.Window{After: d, From: gate.FromFlag}, nil
	return nil
}

func (f *windowFlag) String() string {
	if f == nil || f.w == nil || !f.w.Set() {
		return ""
	}
	return f.w.After.String()
}

func (f *windowFlag) envError() error { return f.envErr }

// envDefaulted is a flag whose default came from the environment and that
// remembers a value there it could not take.
type envDefaulted interface{ envError() error }

// checkEnv reports, as a usage error, an environment value no flag
// overrode that a flag could not take.
func checkEnv(fs *flag.FlagSet) error {
	var err error
	fs.VisitAll(func(fl *flag.Flag) {
		if ef, ok := fl.Value.(envDefaulted); ok && ef.envError() != nil && err == nil {
			err = usagef("%s: %v", fs.Name(), ef.envError())
		}
	})
	return err
}

// coordinatorWindows are serve's windows: those it names, the contract's
// for the rest.
func coordinatorWindows(named gate.Windows) gate.Windows {
	ws := gate.ContractWindows()
	if named.Retry.Set() {
		ws.Retry = named.Retry
	}
	if named.Idle.Set() {
		ws.Idle = named.Idle
	}
	return ws
}
