package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
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
// page, whose EventSource reconnects for a fresh snapshot). While the
// ledger is degraded a second goroutine sends a "state" every
// degradedRefresh too; it ends with the handler. A coordinator
// of another ledger than the console's gets no stream: a
// "ledger-changed" event says so, and the page asks again.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	sse, err := newStream(w)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
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
	// The ticker starts before the snapshot is sent, so that a refresh is
	// due degradedRefresh after the page has it.
	tick := s.clock.Ticker(degradedRefresh)
	defer tick.Stop()
	if sse.sendStatus("snapshot", newPageState(st, false)) != nil {
		return
	}
	refreshed := make(chan struct{})
	go func() { defer close(refreshed); s.refreshWhileDegraded(ctx, sse, tick.C) }()
	defer func() { cancel(); <-refreshed }()
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
		return s.sendState(ctx, sse)
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

// sendState sends the status without its leases. One status at a time is
// read and sent, so the page never gets an older one after a newer.
func (s *Server) sendState(ctx context.Context, sse *stream) error {
	sse.stateMu.Lock()
	defer sse.stateMu.Unlock()
	st, err := s.svc.Status(ctx)
	if err != nil {
		return err
	}
	st.Leases = nil
	return sse.sendStatus("state", newPageState(st, true))
}

// degradedRefresh is how often an open page is sent the status again
// while the ledger is degraded. A write the ledger refuses to record (an
// ungated write on a full disk) brings no ledger event, after which the
// status is sent, so without it the page would not show that write, the
// one the coordinator's memory alone knows of, until some later event.
// Two seconds keeps the page as fresh as the watcher's report of a write
// takes, at one status call per page every two seconds, and only then.
const degradedRefresh = 2 * time.Second

// refreshWhileDegraded sends the status at each tick while the last one
// sent said the ledger is degraded, until ctx ends or a send fails.
func (s *Server) refreshWhileDegraded(ctx context.Context, sse *stream, tick <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
		if sse.degraded.Load() && s.sendState(ctx, sse) != nil {
			return
		}
	}
}

// pageState is a status as the page gets it: Partial marks one whose
// leases were left out, and GitLockNotes has, for each contention and
// open blocker whose held write's process holds git's lock, what that
// means and the fastest way out, worded as status and blockers word it;
// WentBack says that the shared ledger went back.
type pageState struct {
	leasegate.Status
	Partial      bool              `json:"partial,omitempty"`
	GitLockNotes map[string]string `json:"git_lock_notes,omitempty"`
	// WentBack is the status's ledger_went_back in one line, as status
	// and doctor say it.
	WentBack string `json:"went_back_summary,omitempty"`
}

func newPageState(st leasegate.Status, partial bool) pageState {
	ps := pageState{Status: st, Partial: partial}
	if st.WentBack != nil {
		ps.WentBack = st.WentBack.Summary()
	}
	note := func(id, text string) {
		if text == "" {
			return
		}
		if ps.GitLockNotes == nil {
			ps.GitLockNotes = map[string]string{}
		}
		ps.GitLockNotes[id] = text
	}
	for _, c := range st.Contentions {
		note(c.ID, blocker.GitLockNote(c.HoldsGitLock, c.ID, c.Holder.Owner.Name))
	}
	for _, b := range st.Blockers {
		note(b.ID, b.GitLockNote())
	}
	return ps
}

// stream writes server-sent events, one at a time from any goroutine.
type stream struct {
	mu sync.Mutex
	w  http.ResponseWriter
	f  http.Flusher
	// degraded: the last status sent said the ledger is degraded.
	degraded atomic.Bool
	stateMu  sync.Mutex // held while a state is read and sent

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

// sendStatus sends a status, noting whether it says the ledger is
// degraded.
func (s *stream) sendStatus(name string, ps pageState) error {
	s.degraded.Store(ps.LedgerWarning != "")
	return s.send(name, ps)
}

// send writes one event of the given name with v as JSON data, and flushes.
func (s *stream) send(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data); err != nil {
		return err
	}
	s.f.Flush()
	return nil
}
