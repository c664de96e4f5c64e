package console

import (
	"context"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// Service is what the console needs of a coordinator: the calls of the
// API client that `leasegate status`, `events --follow`, `history` and
// `resolve` make.
type Service interface {
	Health(ctx context.Context) (api.Health, error)
	Status(ctx context.Context) (leasegate.Status, error)
	Stats(ctx context.Context) (leasegate.Stats, error)
	Events(ctx context.Context, after uint64, follow bool, fn func(gate.Event) error) error
	History(ctx context.Context, id gate.LeaseID, path string, limit int) ([]gate.Event, error)
	Resolve(ctx context.Context, id string, a blocker.Action, by, note string) (leasegate.ResolveResult, error)
}

var _ Service = (*api.Client)(nil)
