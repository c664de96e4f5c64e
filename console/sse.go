package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// errNoFlush means the response cannot be streamed.
var errNoFlush = errors.New("response writer cannot flush")

// events streams the page's state as server-sent events: one "snapshot"
// (the whole status), then every ledger event as "ledger", each non-lease
// event followed by a "state" (the status without its leases, which the
// page keeps up to date from the lease events). The handler's goroutine is
// the subscriber; it ends when the page goes, the console stops, or the
// coordinator's stream ends (then a "resync" or "gone" event tells the
// page, whose EventSource reconnects for a fresh snapshot). A coordinator
// of another ledger than the console's gets no stream: a
// "ledger-changed" event says so, and the page asks again.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	sse, err := newStream(w)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ctx := r.Context()
	if err := s.checkLedger(ctx); err != nil {
		_ = sse.send(streamRefusal(err))
		return
	}
	st, err := s.svc.Status(ctx)
	if err != nil {
		_ = sse.send("gone", map[string]string{"error": err.Error()})
		return
	}
	slim(st.Leases)
	if sse.send("snapshot", st) != nil {
		return
	}
	err = s.svc.Events(ctx, st.LastSeq, true, func(e gate.Event) error {
		if e.Lease != nil {
			l := *e.Lease
			l.Scope.Files = nil
			e.Lease = &l
		}
		if err := sse.send("ledger", e); err != nil {
			return err
		}
		if e.IsLease() {
			return nil
		}
		return s.sendState(sse, r)
	})
	if ctx.Err() == nil {
		_ = sse.send("resync", map[string]string{"why": resyncWhy(err)})
	}
}

// streamRefusal is the event that tells the page why no stream follows:
// "ledger-changed" for a coordinator of another ledger, else "gone".
func streamRefusal(err error) (string, map[string]string) {
	var lc *LedgerChangedError
	if errors.As(err, &lc) {
		return "ledger-changed", map[string]string{"error": err.Error()}
	}
	return "gone", map[string]string{"error": err.Error()}
}

// resyncWhy says why the coordinator's stream ended under an open page.
func resyncWhy(err error) string {
	if err != nil {
		return err.Error()
	}
	return "the coordinator ended the event stream: it stopped, or dropped a subscriber that fell behind"
}

// slim drops what the page does not show from leases: the file identities
// (device and inode of each path), a third of a lease's JSON.
func slim(ls []gate.Lease) {
	for i := range ls {
		ls[i].Scope.Files = nil
	}
}

// sendState sends the status without its leases.
func (s *Server) sendState(sse *stream, r *http.Request) error {
	st, err := s.svc.Status(r.Context())
	if err != nil {
		return err
	}
	st.Leases = nil
	return sse.send("state", partial{Status: st, Partial: true})
}

// partial marks a status whose leases were left out.
type partial struct {
	leasegate.Status
	Partial bool `json:"partial"`
}

// stream writes server-sent events.
type stream struct {
	w http.ResponseWriter
	f http.Flusher
}

func newStream(w http.ResponseWriter) (*stream, error) {
	f, ok := w.(http.Flusher)
	if !ok {
		return nil, errNoFlush
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	f.Flush()
	return &stream{w: w, f: f}, nil
}

// send writes one event of the given name with v as JSON data, and flushes.
func (s *stream) send(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data); err != nil {
		return err
	}
	s.f.Flush()
	return nil
}
