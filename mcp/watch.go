package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// pathURIPrefix starts the URI of a path's lease state, the resource a
// client subscribes to so as to be told when the path changes hands
// (above all: becomes free) instead of polling leases_check.
const pathURIPrefix = "leasegate://path/"

// PathURI is the resource URI of path p's lease state.
func PathURI(p string) string { return pathURIPrefix + p }

// watchRetry is how long the watch waits before following the event
// stream again after it broke (the coordinator restarting).
const watchRetry = time.Second

// watch tells subscribed clients when a path's state changes. It follows
// the coordinator's event stream while anyone is subscribed, and after
// each lease event compares the subscribed paths' states with what it
// last saw.
type watch struct {
	mu    sync.Mutex
	paths map[string]string // URI → path
	last  map[string]string // URI → state last seen
	// pending counts the subscriptions to a URI that the SDK has not
	// recorded yet: it records one only after the handler returns, and a
	// notification sent before then reaches nobody, so a URI's changes
	// are not compared until subscribed says it is recorded.
	pending map[string]int
	checked map[string]string // path → state leases_check last told
	start   sync.Once
	// subscribing, when set, is called at the end of the subscribe
	// handler: a test's way into the moment before the SDK records.
	subscribing func()
}

// noteChecked remembers what leases_check told of a path: a subscription
// to it is about a change from that.
func (w *watch) noteChecked(p, state string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.checked) >= maxChecked {
		clear(w.checked) // a subscription then starts from the state it finds
	}
	w.checked[p] = state
}

// maxChecked bounds what the watch remembers of leases_check answers.
const maxChecked = 4096

func (s *Server) addResources() {
	s.srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: pathURIPrefix + "{+path}", Name: "path-leases", MIMEType: "application/json",
		Description: "The lease state of a path or glob, as leases_check gives it. Subscribe to be told when it changes, e.g. when a held file becomes free."},
		s.readPath)
}

// pathOf parses a path resource URI.
func (s *Server) pathOf(uri string) (string, error) {
	p, ok := strings.CutPrefix(uri, pathURIPrefix)
	if !ok {
		return "", invalid("resource %q: want %sPATH", uri, pathURIPrefix)
	}
	return cleanPath(s.ws, p)
}

func (s *Server) readPath(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	p, err := s.pathOf(req.Params.URI)
	if err != nil {
		return nil, err
	}
	pc, refused := s.refusal(p)
	if !refused {
		st, live, me, err := s.look(ctx, []string{p})
		if err != nil {
			return nil, err
		}
		pc = checkPath(st, p, me, live, s.ws.Folding())
	}
	data, err := json.Marshal(pc)
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(data)}}}, nil
}

// subscribe starts watching a path from the state leases_check last told
// of it, else from its state now: a change from that is notified, even
// one made before the subscription arrived.
func (s *Server) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	p, err := s.pathOf(req.Params.URI)
	if err != nil {
		return err
	}
	st, _, _, err := s.look(ctx, []string{p})
	if err != nil {
		return err
	}
	s.watch.mu.Lock()
	s.watch.paths[req.Params.URI] = p
	s.watch.last[req.Params.URI] = checkPath(st, p, "", nil, s.ws.Folding()).State
	if told, ok := s.watch.checked[p]; ok {
		s.watch.last[req.Params.URI] = told
	}
	s.watch.pending[req.Params.URI]++
	hook := s.watch.subscribing
	s.watch.mu.Unlock()
	s.watch.start.Do(func() {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.follow(s.runCtx)
		}()
	})
	if hook != nil {
		hook()
	}
	return nil
}

// subscribed is told once the SDK has recorded the subscriptions to uris
// (after a resources/subscribe, or as a subscriptions/listen is
// acknowledged), and notifies what changed since the handler took each
// one's state. If the coordinator cannot be asked now, the watch's next
// look does it.
func (s *Server) subscribed(ctx context.Context, uris []string) {
	s.watch.mu.Lock()
	for _, uri := range uris {
		if s.watch.pending[uri] > 1 {
			s.watch.pending[uri]--
		} else {
			delete(s.watch.pending, uri)
		}
	}
	s.watch.mu.Unlock()
	st, err := s.lookWatched(ctx)
	if err != nil {
		s.log.Debug("subscribed paths not looked at", "error", err)
		return
	}
	s.compare(ctx, st)
}

// subscriptions is the middleware that tells the watch when the SDK has
// recorded a subscription: received, once a resources/subscribe was
// handled; sent, as a subscriptions/listen (the protocol's newer way, whose
// Subscribe returns before the server has seen it) is acknowledged.
func (s *Server) subscriptions(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		switch p := req.GetParams().(type) {
		case *sdk.SubscribeParams:
			if method == "resources/subscribe" && err == nil {
				s.subscribed(ctx, []string{p.URI})
			}
		case *sdk.SubscriptionsAcknowledgedParams:
			if err == nil && len(p.Notifications.ResourceSubscriptions) > 0 {
				s.subscribed(ctx, p.Notifications.ResourceSubscriptions)
			}
		}
		return res, err
	}
}

func (s *Server) unsubscribe(_ context.Context, req *sdk.UnsubscribeRequest) error {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	delete(s.watch.paths, req.Params.URI)
	delete(s.watch.last, req.Params.URI)
	delete(s.watch.pending, req.Params.URI)
	return nil
}

// follow follows the event stream until ctx ends, again after each break.
func (s *Server) follow(ctx context.Context) {
	for ctx.Err() == nil {
		err := s.followOnce(ctx)
		s.log.Debug("event stream ended", "error", err)
		t := time.NewTimer(watchRetry)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
}

func (s *Server) followOnce(ctx context.Context) error {
	cl, err := s.conn.get(ctx)
	if err != nil {
		return err
	}
	st, err := cl.Status(ctx)
	if err != nil {
		return s.conn.check(cl, err)
	}
	s.compare(ctx, st)
	return cl.Events(ctx, st.LastSeq, true, func(e gate.Event) error {
		if !e.IsLease() {
			return nil
		}
		st, err := s.lookWatched(ctx)
		if err != nil {
			return err
		}
		s.compare(ctx, st)
		return nil
	})
}

// lookWatched asks the coordinator about the watched paths alone, one
// check per maxPaths of them, rather than for the whole status after
// every lease event, and returns the answers as one snapshot.
func (s *Server) lookWatched(ctx context.Context) (leasegate.Status, error) {
	s.watch.mu.Lock()
	paths := slices.Collect(maps.Values(s.watch.paths))
	s.watch.mu.Unlock()
	var st leasegate.Status
	for chunk := range slices.Chunk(paths, maxPaths) {
		part, _, _, err := s.look(ctx, chunk)
		if err != nil {
			return st, err
		}
		st.Now, st.Leases = part.Now, append(st.Leases, part.Leases...)
		st.Contentions, st.Blockers = append(st.Contentions, part.Contentions...), append(st.Blockers, part.Blockers...)
	}
	return st, nil
}

// compare notifies the subscribers of each path whose state changed.
func (s *Server) compare(ctx context.Context, st leasegate.Status) {
	var changed []string
	s.watch.mu.Lock()
	for uri, p := range s.watch.paths {
		if s.watch.pending[uri] > 0 {
			continue // compared once recorded: a notification now reaches nobody
		}
		state := checkPath(st, p, "", nil, s.ws.Folding()).State
		if last, seen := s.watch.last[uri]; seen && last != state {
			changed = append(changed, uri)
		}
		s.watch.last[uri] = state
	}
	s.watch.mu.Unlock()
	for _, uri := range changed {
		if err := s.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			s.log.Debug("resource update not sent", "uri", uri, "error", fmt.Sprint(err))
		}
	}
}
