package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/workspace"
)

// A coordinator started in the background tells the command that started
// it how its start went: one JSON line on the pipe the starter passes as
// --ready-fd, written once it serves or as soon as it cannot.
type startReport struct {
	Ready bool   `json:"ready,omitempty"`
	PID   int    `json:"pid,omitempty"`   // the coordinator's own pid
	Error string `json:"error,omitempty"` // why it could not start
	// ServingPID is set when another coordinator serves the workspace (0
	// with Error empty: it serves, pid not known yet).
	Serving    bool `json:"serving,omitempty"`
	ServingPID int  `json:"serving_pid,omitempty"`
}

// startError is a coordinator that could not start: the exit code is 5.
type startError struct{ cause error }

func (e *startError) Error() string        { return "the coordinator could not start: " + e.cause.Error() }
func (e *startError) Unwrap() error        { return e.cause }
func (e *startError) Is(target error) bool { return target == api.ErrUnavailable }

// reporter writes a coordinator's start report, once, to the starter's
// pipe; with no pipe (serve run by hand) it writes nothing.
type reporter struct {
	f      *os.File
	served bool
}

// newReporter opens the pipe at fd (0: none). The descriptor is kept from
// the processes the coordinator runs (git).
func newReporter(fd int) *reporter {
	if fd <= 0 {
		return &reporter{}
	}
	closeOnExec(fd)
	return &reporter{f: os.NewFile(uintptr(fd), "ready-fd")}
}

// ready says the coordinator serves.
func (r *reporter) ready() {
	r.served = true
	r.send(startReport{Ready: true, PID: os.Getpid()})
}

// done says why the start failed, if it did and nothing was said yet.
func (r *reporter) done(err error) {
	var se *workspace.ServingError
	switch {
	case err == nil:
		r.send(startReport{Error: "stopped before it served"})
	case errors.As(err, &se):
		r.send(startReport{Serving: true, ServingPID: se.PID, Error: err.Error()})
	default:
		r.send(startReport{Error: err.Error()})
	}
}

// failed says why the start failed: in the log (stderr) first, so that
// the log holds the cause by the time the starter reads it, then to the
// starter, adding why the log could not take it when it could not (a
// full disk). It returns what the command returns.
func (r *reporter) failed(err *startError) error {
	if r.f == nil {
		return err
	}
	if _, werr := fmt.Fprintln(os.Stderr, "leasegate:", err); werr != nil {
		r.done(fmt.Errorf("%w (and its log could not be written: %v)", err.cause, werr))
	} else {
		r.done(err.cause)
	}
	return &exitStatus{code: exitUnavailable}
}

func (r *reporter) send(rep startReport) {
	if r.f == nil {
		return
	}
	_ = json.NewEncoder(r.f).Encode(rep)
	_ = r.f.Close()
	r.f = nil
}

// readStartReport reads a start report from the pipe within wait. An
// empty report with a nil error means the coordinator exited without a
// word (a crash: its log says why).
func readStartReport(pipe *os.File, wait time.Duration) (startReport, error) {
	var rep startReport
	_ = pipe.SetReadDeadline(time.Now().Add(wait))
	line, err := bufio.NewReader(pipe).ReadBytes('\n')
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return rep, fmt.Errorf("it said nothing within %s", wait)
	case errors.Is(err, io.EOF) && len(line) == 0:
		return rep, nil
	case err != nil && !errors.Is(err, io.EOF):
		return rep, err
	}
	if err := json.Unmarshal(line, &rep); err != nil {
		return rep, fmt.Errorf("its start report %q: %w", line, err)
	}
	return rep, nil
}
