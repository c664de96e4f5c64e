package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// call is one API call as either transport carries it: an HTTP request,
// or a request frame of the stream. Handlers see only this, so a call
// means the same over both.
type call struct {
	ctx     context.Context
	body    []byte
	bodyErr error      // reading the body failed: decode returns it
	query   url.Values // nil on the stream
	// r is the HTTP request; nil for a stream frame, whose one path
	// wildcard (name, value) is wild and whose admin, proved by the
	// stream's upgrade request, is streamAdmin.
	r           *http.Request
	wild        [2]string
	streamAdmin string
}

// path returns the value of the route's path wildcard key.
func (q *call) path(key string) string {
	if q.r != nil {
		return q.r.PathValue(key)
	}
	if q.wild[0] == key {
		return q.wild[1]
	}
	return ""
}

// handler answers one call of the route table.
type handler func(*call) (any, error)

// decode reads the call's JSON body strictly: one object, no unknown
// fields.
func (q *call) decode(v any) error {
	if q.bodyErr != nil {
		return q.bodyErr
	}
	return decodeBody(q.body, v)
}

// table is the one route table: HTTP serves every route, the stream the
// routes named in StreamTargets.
func (s *Server) table() map[string]handler {
	return map[string]handler{
		"GET /v1/health":                     s.health,
		"GET /v1/status":                     s.status,
		"POST /v1/check":                     s.check,
		"POST /v1/owners":                    s.register,
		"POST /v1/owners/{name}/heartbeat":   s.heartbeat,
		"POST /v1/owners/{name}/activity":    s.activity,
		"POST /v1/owners/{name}/stop":        s.stop,
		"POST /v1/owners/{name}/end":         s.end,
		"POST /v1/owners/{name}/committed":   s.committed,
		"POST /v1/mutations":                 s.mutate,
		"POST /v1/contentions/{id}/wait":     s.waitContention,
		"POST /v1/contentions/{id}/withdraw": s.withdraw,
		"GET /v1/blockers":                   s.blockers,
		"GET /v1/blockers/{id}":              s.blocker,
		"POST /v1/blockers/{id}/wait":        s.waitBlocker,
		"POST /v1/blockers/{id}/resolve":     s.resolve,
		"POST /v1/leases":                    s.lease,
		"GET /v1/leases":                     s.leases,
		"GET /v1/leases/{id}":                s.getLease,
		"GET /v1/history":                    s.history,
		"GET /v1/whoami":                     s.whoami,
		"GET /v1/stats":                      s.stats,
		"POST /v1/ungated":                   s.ungated,
	}
}

// streamRoute is a route the stream carries, its path split into
// segments to match a frame's target against.
type streamRoute struct {
	method string
	segs   []string // "{name}" for a wildcard
	fn     handler
}

func (s *Server) routes() {
	table := s.table()
	for pattern, fn := range table {
		s.mux.Handle(pattern, s.handle(fn))
	}
	for _, target := range StreamTargets {
		method, path, _ := strings.Cut(target, " ")
		if strings.Count(path, "{") > 1 {
			panic("api: a stream target has at most one path wildcard: " + target)
		}
		s.stream = append(s.stream, streamRoute{method: method, segs: strings.Split(path, "/"), fn: table[target]})
	}
	s.mux.HandleFunc("GET /v1/events", s.events)
	s.mux.HandleFunc("GET /v1/stream", s.upgrade)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path)})
	})
}

// httpCall is r as a call; handle has bounded its body.
func (s *Server) httpCall(r *http.Request) *call {
	body, err := readBody(r)
	return &call{ctx: r.Context(), body: body, bodyErr: err, query: r.URL.Query(), r: r}
}

// admin returns who the caller of q proved to be an admin as, for an
// eviction's record, or "" (see adminOf). A wrong admin token on TCP is
// refused rather than the eviction recorded as no one's.
func (s *Server) admin(q *call) (string, error) {
	if q.r == nil {
		return q.streamAdmin, nil
	}
	r := q.r
	admin := s.adminOf(r)
	if _, unix := leasegate.PeerOf(r.Context()); !unix && admin == "" && r.Header.Get("X-Leasegate-Admin-Token") != "" {
		return "", &gate.DeniedError{Reason: CodeUnauthorized, Message: "wrong admin token"}
	}
	return admin, nil
}

// call carries out one stream request with its HTTP route's handler; the
// stream's admin is the one its upgrade request proved.
func (s *Server) call(ctx context.Context, admin, target string, body []byte) (any, error) {
	method, path, _ := strings.Cut(target, " ")
	for _, rt := range s.stream {
		if wild, ok := rt.match(method, path); ok {
			return rt.fn(&call{ctx: ctx, body: body, wild: wild, streamAdmin: admin})
		}
	}
	return nil, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: fmt.Sprintf("no stream endpoint %s (the stream carries %s)", target, strings.Join(StreamTargets, ", "))}
}

// match reports whether a target's method and path are this route's, and
// its wildcard's name and value, unescaped as HTTP's would be.
func (rt streamRoute) match(method, path string) (wild [2]string, ok bool) {
	if method != rt.method {
		return wild, false
	}
	for i, want := range rt.segs {
		seg, rest, more := strings.Cut(path, "/")
		if more != (i < len(rt.segs)-1) {
			return wild, false
		}
		path = rest
		name, isWild := strings.CutPrefix(want, "{")
		if !isWild {
			if seg != want {
				return wild, false
			}
			continue
		}
		v, err := url.PathUnescape(seg)
		if err != nil {
			v = seg // the handler's id check refuses it
		}
		wild = [2]string{strings.TrimSuffix(name, "}"), v}
	}
	return wild, true
}
