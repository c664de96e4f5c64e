package sidecar

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/intercept"
)

// inherited is a descriptor the worker inherits open for writing.
type inherited struct {
	fd   int
	path string // absolute, as the kernel names the open file
}

// InheritedError is why a worker was not started: it would inherit a
// descriptor open for writing on a gated file whose lease it could not
// take. Err is the refusal (a *gate.DeniedError when another owner holds
// the file and an operator denied the wait).
type InheritedError struct {
	FD   int
	Path string
	Err  error
}

func (e *InheritedError) Error() string {
	return fmt.Sprintf("run: not started: descriptor %d is open for writing on %s, and the worker may not write it: %v "+
		"(close it for the worker, e.g. `%d>&-`, or run it once the file is free)", e.FD, gate.ShownPath(e.Path), e.Err, e.FD)
}

func (e *InheritedError) Unwrap() error { return e.Err }

// claimInherited takes, for the worker, the lease of every gated file it
// will inherit a descriptor open for writing on (`make >> build.log`: the
// shell opened build.log before run started), by the contention protocol
// like any write: held while another owner has the file, retried once,
// then a blocker for an operator. Writes through such a descriptor are
// never seen by the gate, so the lease is taken before the worker starts;
// a refusal means the worker is not started at all.
func (s *Sidecar) claimInherited(ctx context.Context) error {
	fds, err := writableInherited(s.cfg.Stdin, s.cfg.Stdout, s.cfg.Stderr)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	pid := os.Getpid()
	for _, d := range fds {
		m := intercept.Mutation{PID: pid, TID: pid, Op: intercept.OpOpenWrite, Syscall: "inherited", Paths: []string{d.path}}
		if err := s.Decide(ctx, m); err != nil {
			return &InheritedError{FD: d.fd, Path: d.path, Err: refusal(err)}
		}
	}
	return nil
}

// refusal turns Decide's errno into the error a command reports: EBUSY is
// a file another owner holds.
func refusal(err error) error {
	if errors.Is(err, syscall.EBUSY) {
		return &gate.DeniedError{Reason: gate.ReasonHeldByOther, Message: "held by another owner (EBUSY)"}
	}
	return err
}
