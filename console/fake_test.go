package console_test

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// fakeService is the far side of the API for handler tests: a fixed
// status and the events a test feeds it.
type fakeService struct {
	status leasegate.Status
	feed   chan gate.Event

	mu       sync.Mutex
	resolved []api.ResolveRequest
	ledger   *leasegate.LedgerView // what Health says it serves
}

// serve makes the fake a coordinator of ledger l, as when another
// coordinator took over the socket.
func (f *fakeService) serve(l *leasegate.LedgerView) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ledger = l
}

func newFake() *fakeService {
	l := gate.Lease{ID: "L1", Owner: gate.Owner{Name: "alice"}, Kind: gate.KindAuto,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{"src/a.go"}}, AcquiredAt: time.Unix(1e9, 0).UTC()}
	return &fakeService{
		status: leasegate.Status{LastSeq: 7, Leases: []gate.Lease{l},
			Owners: []leasegate.OwnerView{{Owner: gate.Owner{Name: "alice"}, Liveness: gate.Liveness{Status: gate.Alive, Evidence: []string{"pidfd: pid 1 running"}}}}},
		feed: make(chan gate.Event, 16),
	}
}

func (f *fakeService) Health(context.Context) (api.Health, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return api.Health{OK: true, PID: os.Getpid(), Ledger: f.ledger}, nil
}

func (f *fakeService) Stats(context.Context) (leasegate.Stats, error) {
	return leasegate.Stats{CommitLatency: leasegate.Histogram{Bounds: []float64{0.001, 0.01}, Counts: []uint64{2, 3}, Count: 3, Sum: 0.012},
		CommitBatch:     leasegate.Histogram{Bounds: []float64{1, 8}, Counts: []uint64{1, 2}, Count: 2, Sum: 7},
		CommittedEvents: 9, JournalHeadroom: 4096, Goroutines: 12}, nil
}

func (f *fakeService) Status(context.Context) (leasegate.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status, nil
}

// setStatus changes what Status answers.
func (f *fakeService) setStatus(edit func(*leasegate.Status)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	edit(&f.status)
}

func (f *fakeService) Events(ctx context.Context, after uint64, follow bool, fn func(gate.Event) error) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case e := <-f.feed:
			if e.Seq <= after {
				continue
			}
			if err := fn(e); err != nil {
				return err
			}
		}
	}
}

func (f *fakeService) History(_ context.Context, _ gate.LeaseID, p string, _ int) ([]gate.Event, error) {
	return []gate.Event{{Seq: 1, Type: gate.EventGranted, Path: p}}, nil
}

func (f *fakeService) Resolve(_ context.Context, id string, a blocker.Action, by, note string) (leasegate.ResolveResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resolved = append(f.resolved, api.ResolveRequest{Action: a, By: by, Note: note})
	return leasegate.ResolveResult{Blocker: blocker.Report{ID: id}, Outcome: leasegate.Denied, Message: "denied"}, nil
}

func (f *fakeService) resolutions() []api.ResolveRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.ResolveRequest(nil), f.resolved...)
}
