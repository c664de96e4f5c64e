package hooks_test

import (
	"context"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/internal/servicetest"
)

// fakeCoordinator is the scripted coordinator the sidecar's tests use
// too (servicetest.Script), with the calls a hook makes beside the
// contention protocol answered as by a coordinator with nothing to say.
type fakeCoordinator struct {
	*servicetest.Script
}

var _ hooks.Coordinator = fakeCoordinator{}

// script is a coordinator whose Mutate answers with mutates.
func script(mutates ...servicetest.Answer) fakeCoordinator {
	return fakeCoordinator{servicetest.New(mutates...)}
}

func (fakeCoordinator) Activity(context.Context, string) error { return nil }
func (fakeCoordinator) Stop(context.Context, string, string) (time.Time, error) {
	return time.Time{}, nil
}
func (fakeCoordinator) ReleaseCommitted(context.Context, string) ([]gate.Lease, error) {
	return nil, nil
}
func (fakeCoordinator) ReportUngated(context.Context, leasegate.UngatedWrite) error { return nil }
func (fakeCoordinator) Leases(context.Context, string) ([]gate.Lease, error)        { return nil, nil }
func (fakeCoordinator) Status(context.Context) (leasegate.Status, error) {
	return leasegate.Status{}, nil
}
func (fakeCoordinator) Whoami(context.Context) (leasegate.CallerView, error) {
	return leasegate.CallerView{}, nil
}
func (fakeCoordinator) Blockers(context.Context, bool) ([]blocker.Report, error) { return nil, nil }
func (fakeCoordinator) Blocker(context.Context, string) (blocker.Report, error) {
	return blocker.Report{}, &gate.DeniedError{Reason: gate.ReasonNotFound}
}
func (fakeCoordinator) Close() {}

// The hooks' owner in these tests is Claude Code's session S.
func contended(path string) servicetest.Answer { return servicetest.Contended("cc-S", path) }
func blockedAt(path string) servicetest.Answer { return servicetest.Blocked("cc-S", path) }
