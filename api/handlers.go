package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// CheckRequest asks what stands in the way of writing some paths: the
// body of POST /v1/check.
type CheckRequest struct {
	Paths []string `json:"paths"` // workspace-relative paths or globs
}

// StopRequest is the body of POST /v1/owners/{name}/stop and /end.
type StopRequest struct {
	Reason string `json:"reason,omitempty"`
}

// StopResponse says when a stop-idle release will happen.
type StopResponse struct {
	ReleaseAt time.Time `json:"release_at"`
}

// EndResponse counts the leases released when a worker ended.
type EndResponse struct {
	Released int `json:"released"`
}

// LeasesResponse lists leases.
type LeasesResponse struct {
	Leases []gate.Lease `json:"leases"`
}

// ResolveRequest is the body of POST /v1/blockers/{id}/resolve.
type ResolveRequest struct {
	Action blocker.Action `json:"action"`
	By     string         `json:"by,omitempty"`
	Note   string         `json:"note,omitempty"`
}

// HistoryResponse is the audit trail.
type HistoryResponse struct {
	Events []gate.Event `json:"events"`
}

func (s *Server) health(*call) (any, error) { return s.Info, nil }

func (s *Server) whoami(q *call) (any, error) { return s.c.Whoami(q.ctx) }

func (s *Server) check(q *call) (any, error) {
	var req CheckRequest
	if err := q.decode(&req); err != nil {
		return nil, err
	}
	return s.c.Check(q.ctx, req.Paths)
}

func (s *Server) register(q *call) (any, error) {
	var reg leasegate.Registration
	if err := q.decode(&reg); err != nil {
		return nil, err
	}
	reg.JoinRoot = q.query.Get("join") == "root"
	name, err := s.c.Join(q.ctx, reg)
	return leasegate.Joined{Owner: name}, err
}

func (s *Server) heartbeat(q *call) (any, error) {
	name, err := q.pathID("name")
	if err != nil {
		return nil, err
	}
	return s.c.Heartbeat(q.ctx, name)
}

func (s *Server) activity(q *call) (any, error) {
	name, err := q.pathID("name")
	if err != nil {
		return nil, err
	}
	return struct{}{}, s.c.Activity(q.ctx, name)
}

func (s *Server) stop(q *call) (any, error) {
	name, req, err := s.ownerBody(q)
	if err != nil {
		return nil, err
	}
	at, err := s.c.Stop(q.ctx, name, req.Reason)
	return StopResponse{ReleaseAt: at}, err
}

func (s *Server) end(q *call) (any, error) {
	name, req, err := s.ownerBody(q)
	if err != nil {
		return nil, err
	}
	if req.Reason == "" {
		req.Reason = "worker ended"
	}
	n, err := s.c.End(q.ctx, name, req.Reason)
	return EndResponse{Released: n}, err
}

func (s *Server) ownerBody(q *call) (string, StopRequest, error) {
	var req StopRequest
	name, err := q.pathID("name")
	if err == nil && (len(q.body) != 0 || q.bodyErr != nil) {
		err = q.decode(&req)
	}
	return name, req, err
}

func (s *Server) committed(q *call) (any, error) {
	name, err := q.pathID("name")
	if err != nil {
		return nil, err
	}
	ls, err := s.c.ReleaseCommitted(q.ctx, name)
	return LeasesResponse{Leases: ls}, err
}

func (s *Server) mutate(q *call) (any, error) {
	var req leasegate.MutateRequest
	if err := q.decode(&req); err != nil {
		return nil, err
	}
	return s.c.Mutate(q.ctx, req)
}

func (s *Server) waitContention(q *call) (any, error) {
	id, err := q.pathID("id")
	if err != nil {
		return nil, err
	}
	ctx, cancel, err := waitCtx(q)
	if err != nil {
		return nil, err
	}
	defer cancel()
	return s.c.WaitContention(ctx, id)
}

// WithdrawRequest is the body of POST /v1/contentions/{id}/withdraw.
type WithdrawRequest struct {
	Reason string `json:"reason"`
}

func (s *Server) withdraw(q *call) (any, error) {
	id, err := q.pathID("id")
	if err != nil {
		return nil, err
	}
	var req WithdrawRequest
	if err := q.decode(&req); err != nil {
		return nil, err
	}
	if req.Reason == "" {
		req.Reason = "withdrawn by its requester"
	}
	return s.c.Withdraw(q.ctx, id, req.Reason)
}

func (s *Server) waitBlocker(q *call) (any, error) {
	id, err := q.pathID("id")
	if err != nil {
		return nil, err
	}
	ctx, cancel, err := waitCtx(q)
	if err != nil {
		return nil, err
	}
	defer cancel()
	return s.c.WaitBlocker(ctx, id)
}

func waitCtx(q *call) (context.Context, context.CancelFunc, error) {
	d, err := waitFor(q)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(q.ctx, d)
	return ctx, cancel, nil
}

func (s *Server) blockers(q *call) (any, error) {
	all, _ := strconv.ParseBool(q.query.Get("all"))
	bs, err := s.c.Blockers(q.ctx, all)
	return struct {
		Blockers []blocker.Report `json:"blockers"`
	}{bs}, err
}

func (s *Server) blocker(q *call) (any, error) {
	id, err := q.pathID("id")
	if err != nil {
		return nil, err
	}
	return s.c.Blocker(q.ctx, id)
}

func (s *Server) resolve(q *call) (any, error) {
	id, err := q.pathID("id")
	if err != nil {
		return nil, err
	}
	var req ResolveRequest
	if err := q.decode(&req); err != nil {
		return nil, err
	}
	if req.By == "" {
		req.By = "operator"
	}
	return s.c.Resolve(q.ctx, id, req.Action, req.By, req.Note)
}

func (s *Server) lease(q *call) (any, error) {
	var req leasegate.LeaseRequest
	if err := q.decode(&req); err != nil {
		return nil, err
	}
	if req.Op == gate.OpEvict {
		admin, err := s.admin(q)
		if err != nil {
			return nil, err
		}
		req.Admin = admin
	}
	return s.c.Lease(q.ctx, req)
}

func (s *Server) leases(q *call) (any, error) {
	ls, err := s.c.Leases(q.ctx, q.query.Get("path"))
	return LeasesResponse{Leases: ls}, err
}

func (s *Server) getLease(q *call) (any, error) {
	id, err := q.pathID("id")
	if err != nil {
		return nil, err
	}
	return s.c.GetLease(q.ctx, gate.LeaseID(id))
}

func (s *Server) history(q *call) (any, error) {
	id, p := q.query.Get("lease"), q.query.Get("path")
	if id != "" {
		if err := gate.ValidID(id); err != nil {
			return nil, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "lease: " + err.Error()}
		}
	}
	if p != "" {
		cp, err := gate.CleanPath(p)
		if err != nil {
			return nil, gate.AsDenied(err)
		}
		p = cp
	}
	limit, err := limitParam(q)
	if err != nil {
		return nil, err
	}
	evs, err := s.c.History(q.ctx, gate.LeaseID(id), p, limit)
	return HistoryResponse{Events: evs}, err
}

func (s *Server) ungated(q *call) (any, error) {
	var w leasegate.UngatedWrite
	if err := q.decode(&w); err != nil {
		return nil, err
	}
	w.Path = gate.Unescape(w.Path) // the client sends the name as its pattern (Client.ReportUngated)
	return struct{}{}, s.c.ReportUngated(q.ctx, w)
}

// events streams committed events as JSON lines: first the ledger from
// ?after= (when given), then live events while ?follow= is true.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	follow, _ := strconv.ParseBool(q.Get("follow"))
	after, err := strconv.ParseUint(q.Get("after"), 10, 64)
	if q.Get("after") != "" && err != nil {
		writeError(w, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "after: want a sequence number"})
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	flush := func() {}
	if f, ok := w.(http.Flusher); ok {
		flush = f.Flush
	}
	if follow {
		w.WriteHeader(http.StatusOK)
		flush() // a follower learns at once that its stream is open
	}
	enc := json.NewEncoder(w)
	last := after
	err = s.c.Events(r.Context(), after, follow, func(e gate.Event) error {
		last = e.Seq
		if err := enc.Encode(e); err != nil {
			return err
		}
		if follow {
			flush()
		}
		return nil
	})
	if err != nil && r.Context().Err() == nil {
		// A gone reader, a ledger that cannot be read or a follower too
		// slow: either way the stream ends here rather than go on with a
		// gap in it.
		s.log.Warn("events: stream ended", "after", last, "error", err)
	}
}
