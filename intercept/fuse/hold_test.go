//go:build linux && (amd64 || arm64)

package fuse_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/intercept"
)

// holder is a Decider that holds every create until released, and reports
// how each held Decide ended.
type holder struct {
	held    chan intercept.Mutation // a create is being held
	release chan struct{}           // closed to let every held create run
	ended   chan error              // each held Decide's context cause, or nil if released
}

func newHolder() *holder {
	return &holder{held: make(chan intercept.Mutation, 4), release: make(chan struct{}), ended: make(chan error, 4)}
}

func (h *holder) Decide(ctx context.Context, m intercept.Mutation) error {
	if m.Op != intercept.OpCreate {
		return nil
	}
	h.held <- m
	select {
	case <-h.release:
		h.ended <- nil
		return nil
	case <-ctx.Done():
		h.ended <- context.Cause(ctx)
		return syscall.EBUSY
	}
}

// heldCreate waits until h holds a create.
func heldCreate(t *testing.T, h *holder) intercept.Mutation {
	t.Helper()
	select {
	case m := <-h.held:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no create held within 10 s")
	}
	return intercept.Mutation{}
}

// TestHeldCreateStallsNoOtherMount: while one worker's create is held (its
// mount keeps the directory's lock for the whole wait), a worker with its
// own mount of the same directory lists it and creates in it at once.
func TestHeldCreateStallsNoOtherMount(t *testing.T) {
	root := workspace(t)
	h := newHolder()
	var out buffer
	first := start(t, root, h, &out, "echo x > held")
	heldCreate(t, h)
	code, got := run(t, root, &recorder{}, "ls >/dev/null && echo y > other && ls")
	if code != 0 || !strings.Contains(got, "other") {
		t.Fatalf("second mount's ls and create = %d, %q; want them done while the first is held", code, got)
	}
	close(h.release)
	if st, _ := first.Wait(); st.ExitCode() != 0 {
		t.Fatalf("released create exited %d: %s", st.ExitCode(), out.String())
	}
}

// TestInterruptKeepsTheWait: a signal whose default is to be ignored
// (SIGWINCH to a shell that traps it) does not end a held create, which
// then runs once released.
func TestInterruptKeepsTheWait(t *testing.T) {
	root := workspace(t)
	h := newHolder()
	var out buffer
	s := start(t, root, h, &out, "trap 'echo caught' WINCH; echo x > held; echo written")
	m := heldCreate(t, h)
	if err := syscall.Kill(m.TID, syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	select {
	case cause := <-h.ended:
		t.Fatalf("SIGWINCH ended the held create: %v", cause)
	case <-time.After(300 * time.Millisecond): // 15 kill polls
	}
	close(h.release)
	if st, _ := s.Wait(); st.ExitCode() != 0 || !strings.Contains(out.String(), "written") {
		t.Fatalf("interrupted create exited %d: %q; want it written once released", st.ExitCode(), out.String())
	}
	if _, err := os.Stat(filepath.Join(root, "held")); err != nil {
		t.Fatalf("released create: %v", err)
	}
}

// TestCtrlCEndsTheWait: SIGINT (Ctrl-C) to a shell that traps it ends a
// held create as it would end a blocking syscall natively: the Decide's
// context says SIGINT, the create fails (the sidecar answers EINTR) and the trap runs; the
// file is not made.
func TestCtrlCEndsTheWait(t *testing.T) {
	root := workspace(t)
	h := newHolder()
	var out buffer
	s := start(t, root, h, &out, "trap 'echo caught' INT; echo x > held || echo failed")
	m := heldCreate(t, h)
	if err := syscall.Kill(m.TID, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case cause := <-h.ended:
		var ie *intercept.InterruptedError
		if !errors.As(cause, &ie) || ie.Signal != syscall.SIGINT {
			t.Fatalf("held create ended by %v, want SIGINT", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SIGINT did not end the held create within 10 s")
	}
	if st, _ := s.Wait(); !strings.Contains(out.String(), "caught") || !strings.Contains(out.String(), "failed") {
		t.Fatalf("interrupted create exited %d: %q; want it failed and the trap run", st.ExitCode(), out.String())
	}
	if _, err := os.Lstat(filepath.Join(root, "held")); !os.IsNotExist(err) {
		t.Fatalf("interrupted create left a file: %v", err)
	}
}

// TestKillEndsTheWait: SIGKILL of a worker whose create is held (after a
// handled signal that leaves the wait held, which brings the kernel's only
// interrupt) cancels the Decide's context as the caller's end, not as an
// interrupt it would see, and the worker dies.
func TestKillEndsTheWait(t *testing.T) {
	root := workspace(t)
	h := newHolder()
	var out buffer
	s := start(t, root, h, &out, "trap 'echo caught' WINCH; echo x > held")
	m := heldCreate(t, h)
	syscall.Kill(m.TID, syscall.SIGWINCH)
	syscall.Kill(m.TID, syscall.SIGKILL)
	select {
	case cause := <-h.ended:
		var ie *intercept.InterruptedError
		if cause == nil || errors.As(cause, &ie) || !strings.Contains(cause.Error(), "ended") {
			t.Fatalf("held create ended by %v, want the thread's end", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SIGKILL did not end the held create within 10 s")
	}
	if st, _ := s.Wait(); st.ExitCode() != -1 {
		t.Fatalf("killed worker: %v", st)
	}
	if _, err := os.Lstat(filepath.Join(root, "held")); !os.IsNotExist(err) {
		t.Fatalf("killed create left a file: %v", err)
	}
}
