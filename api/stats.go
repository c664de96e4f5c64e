package api

import (
	"context"
	"net/http"

	"github.com/leasegate/leasegate"
)

// stats answers GET /v1/stats: the figures only the coordinator's process
// has (commit latency, journal headroom, goroutines).
func (s *Server) stats(q *call) (any, error) { return s.c.Stats(q.ctx) }

// Stats returns the coordinator's own figures.
func (c *Client) Stats(ctx context.Context) (leasegate.Stats, error) {
	var st leasegate.Stats
	return st, c.do(ctx, http.MethodGet, "/v1/stats", nil, &st)
}
