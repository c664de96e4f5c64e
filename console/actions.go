package console

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// historyLimit bounds the events one click on a path shows.
const historyLimit = 200

// history answers a click on a path with its audit trail as JSON.
func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Query().Get("path")
	if p == "" {
		http.Error(w, "history: want ?path=", http.StatusBadRequest)
		return
	}
	evs, err := s.svc.History(r.Context(), gate.NoLease, p, historyLimit)
	if err != nil {
		http.Error(w, "history of "+strconv.Quote(p)+": "+err.Error(), http.StatusBadGateway)
		return
	}
	writeJSON(w, map[string]any{"path": p, "events": evs})
}

// resolveRequest is the body the page posts to resolve a blocker.
type resolveRequest struct {
	Action blocker.Action `json:"action"`
	Note   string         `json:"note"`
}

// resolve acts as `leasegate resolve` does, recording the operator as by.
func (s *Server) resolve(w http.ResponseWriter, r *http.Request) {
	var req resolveRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		http.Error(w, "resolve: body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if !req.Action.Valid() {
		http.Error(w, "resolve: action must be retry, deny or abort", http.StatusBadRequest)
		return
	}
	id := r.PathValue("id")
	if err := s.checkLedger(r.Context()); err != nil {
		http.Error(w, "resolve "+id+": "+err.Error(), resolveStatus(err))
		return
	}
	res, err := s.svc.Resolve(r.Context(), id, req.Action, s.operator, req.Note)
	if err != nil {
		http.Error(w, "resolve "+id+": "+err.Error(), resolveStatus(err))
		return
	}
	s.log.Info("blocker resolved", "blocker", id, "action", req.Action, "by", s.operator)
	writeJSON(w, res)
}

// resolveStatus is the status a failed resolution is answered with.
func resolveStatus(err error) int {
	if errors.Is(err, blocker.ErrNotOpen) || errors.Is(err, leasegate.ErrLedgerMismatch) {
		return http.StatusConflict
	}
	var ae *api.APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return http.StatusBadGateway
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
