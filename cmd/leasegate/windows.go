package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// Environment names of the windows.
const (
	envRetryAfter = "LEASEGATE_RETRY_AFTER"
	envIdleAfter  = "LEASEGATE_IDLE_AFTER"
)

// windowFlag is --retry-after or --idle-after: a window validated where it
// is parsed, from the flag or else the environment, remembering which.
// A value the contract does not allow (longer than its window, zero or
// negative) is a usage error of the command, from either place.
type windowFlag struct {
	w      *gate.Window
	valid  func(d time.Duration, required bool) error
	envErr error // an unusable environment value, reported unless the flag is given
}

// registerWindows adds --retry-after and --idle-after to fs, filling ws
// from the flags or the environment; windows named by neither stay zero.
func registerWindows(fs *flag.FlagSet, ws *gate.Windows) {
	fs.Var(newWindowFlag(&ws.Retry, envRetryAfter, gate.ValidRetryAfter), "retry-after", fmt.Sprintf(
		"this owner's wait before the one retry of a denied mutation (env %s); at most the contract's %s, "+
			"which applies when none is named; longer, zero or negative is a usage error", envRetryAfter, gate.DefaultRetryAfter))
	fs.Var(newWindowFlag(&ws.Idle, envIdleAfter, gate.ValidIdleAfter), "idle-after", fmt.Sprintf(
		"this owner's stop-idle window before its leases are released once it stopped (env %s); at most the contract's %s, "+
			"which applies when none is named; longer, zero or negative is a usage error", envIdleAfter, gate.DefaultIdleAfter))
}

func newWindowFlag(w *gate.Window, env string, valid func(time.Duration, bool) error) *windowFlag {
	f := &windowFlag{w: w, valid: valid}
	if v := os.Getenv(env); v != "" {
		if d, err := parseWindow(v, valid); err != nil {
			f.envErr = fmt.Errorf("%s=%q: %w", env, v, err)
		} else {
			*w = gate.Window{After: d, From: gate.FromEnv}
		}
	}
	return f
}

func parseWindow(v string, valid func(time.Duration, bool) error) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("want a duration like 5s: %w", err)
	}
	return d, valid(d, true)
}

func (f *windowFlag) Set(v string) error {
	d, err := parseWindow(v, f.valid)
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

// checkEnv reports, as a usage error, an environment window no flag
// overrode.
func checkEnv(fs *flag.FlagSet) error {
	var err error
	fs.VisitAll(func(fl *flag.Flag) {
		if wf, ok := fl.Value.(*windowFlag); ok && wf.envErr != nil && err == nil {
			err = usagef("%s: %v", fs.Name(), wf.envErr)
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
