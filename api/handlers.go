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

func (s *Server) health(*http.Request) (any, error) { return s.Info, nil }

func (s *Server) status(r *http.Request) (any, error) { return s.c.Status(r.Context()) }

func (s *Server) whoami(r *http.Request) (any, error) { return s.c.Whoami(r.Context()) }

func (s *Server) check(r *http.Request) (any, error) {
	var req CheckRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	return s.c.Check(r.Context(), req.Paths)
}

func (s *Server) register(r *http.Request) (any, error) {
	var reg leasegate.Registration
	if err := decode(r, &reg); err != nil {
		return nil, err
	}
	name, err := s.c.Join(r.Context(), reg)
	return leasegate.Joined{Owner: name}, err
}

func (s *Server) heartbeat(r *http.Request) (any, error) {
	name, err := pathID(r, "name")
	if err != nil {
		return nil, err
	}
	return struct{}{}, s.c.Heartbeat(r.Context(), name)
}

func (s *Server) activity(r *http.Request) (any, error) {
	name, err := pathID(r, "name")
	if err != nil {
		return nil, err
	}
	return struct{}{}, s.c.Activity(r.Context(), name)
}

func (s *Server) stop(r *http.Request) (any, error) {
	name, req, err := s.ownerBody(r)
	if err != nil {
		return nil, err
	}
	at, err := s.c.Stop(r.Context(), name, req.Reason)
	return StopResponse{ReleaseAt: at}, err
}

func (s *Server) end(r *http.Request) (any, error) {
	name, req, err := s.ownerBody(r)
	if err != nil {
		return nil, err
	}
	if req.Reason == "" {
		req.Reason = "worker ended"
	}
	n, err := s.c.End(r.Context(), name, req.Reason)
	return EndResponse{Released: n}, err
}

func (s *Server) ownerBody(r *http.Request) (string, StopRequest, error) {
	var req StopRequest
	name, err := pathID(r, "name")
	if err == nil && r.ContentLength != 0 {
		err = decode(r, &req)
	}
	return name, req, err
}

func (s *Server) committed(r *http.Request) (any, error) {
	name, err := pathID(r, "name")
	if err != nil {
		return nil, err
	}
	ls, err := s.c.ReleaseCommitted(r.Context(), name)
	return LeasesResponse{Leases: ls}, err
}

func (s *Server) mutate(r *http.Request) (any, error) {
	var req leasegate.MutateRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	return s.c.Mutate(r.Context(), req)
}

func (s *Server) waitContention(r *http.Request) (any, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	ctx, cancel, err := waitCtx(r)
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

func (s *Server) withdraw(r *http.Request) (any, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	var req WithdrawRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if req.Reason == "" {
		req.Reason = "withdrawn by its requester"
	}
	return s.c.Withdraw(r.Context(), id, req.Reason)
}

func (s *Server) waitBlocker(r *http.Request) (any, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	ctx, cancel, err := waitCtx(r)
	if err != nil {
		return nil, err
	}
	defer cancel()
	return s.c.WaitBlocker(ctx, id)
}

func waitCtx(r *http.Request) (context.Context, context.CancelFunc, error) {
	d, err := waitFor(r)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(r.Context(), d)
	return ctx, cancel, nil
}

func (s *Server) blockers(r *http.Request) (any, error) {
	all, _ := strconv.ParseBool(r.URL.Query().Get("all"))
	bs, err := s.c.Blockers(r.Context(), all)
	return struct {
		Blockers []blocker.Report `json:"blockers"`
	}{bs}, err
}

func (s *Server) blocker(r *http.Request) (any, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	return s.c.Blocker(r.Context(), id)
}

func (s *Server) resolve(r *http.Request) (any, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	var req ResolveRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if req.By == "" {
		req.By = "operator"
	}
	return s.c.Resolve(r.Context(), id, req.Action, req.By, req.Note)
}

func (s *Server) lease(r *http.Request) (any, error) {
	var req leasegate.LeaseRequest
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if req.Op == gate.OpEvict {
		req.Admin = s.adminOf(r)
		if _, unix := leasegate.PeerOf(r.Context()); !unix && req.Admin == "" && r.Header.Get("X-Leasegate-Admin-Token") != "" {
			return nil, &gate.DeniedError{Reason: CodeUnauthorized, Message: "wrong admin token"}
		}
	}
	res, err := s.c.Lease(r.Context(), req)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (s *Server) leases(r *http.Request) (any, error) {
	ls, err := s.c.Leases(r.Context(), r.URL.Query().Get("path"))
	return LeasesResponse{Leases: ls}, err
}

func (s *Server) getLease(r *http.Request) (any, error) {
	id, err := pathID(r, "id")
	if err != nil {
		return nil, err
	}
	return s.c.GetLease(r.Context(), gate.LeaseID(id))
}

func (s *Server) history(r *http.Request) (any, error) {
	q := r.URL.Query()
	id, p := q.Get("lease"), q.Get("path")
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
	limit, err := limitParam(r)
	if err != nil {
		return nil, err
	}
	evs, err := s.c.History(r.Context(), gate.LeaseID(id), p, limit)
	return HistoryResponse{Events: evs}, err
}

func (s *Server) ungated(r *http.Request) (any, error) {
	var w leasegate.UngatedWrite
	if err := decode(r, &w); err != nil {
		return nil, err
	}
	return struct{}{}, s.c.ReportUngated(r.Context(), w)
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
