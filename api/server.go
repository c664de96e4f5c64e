package api

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// MaxBody bounds a request body.
const MaxBody = 1 << 20

// MaxWait bounds one long-poll; clients poll again.
const MaxWait = 60 * time.Second

// Server serves a coordinator's API.
type Server struct {
	c          leasegate.Service
	adminToken string
	log        hclog.Logger
	mux        *http.ServeMux
	stream     []streamRoute // the routes of StreamTargets, for the stream's frames
	conns      *connCounts   // the connections of every listener
	// Info is returned by GET /v1/health.
	Info Health
}

// Health is the answer of GET /v1/health.
type Health struct {
	OK        bool   `json:"ok"`
	Version   string `json:"version"`
	API       string `json:"api"`
	Workspace string `json:"workspace"`
	PID       int    `json:"pid"`
	Log       string `json:"log,omitempty"` // where the coordinator's log goes: a file, or what its stderr is
	// Ledger is the ledger the coordinator serves and what named it; nil
	// from a coordinator too old to say.
	Ledger *leasegate.LedgerView `json:"ledger,omitempty"`
	// MaxConns is how many connections the coordinator holds at once
	// (MaxConns unless LimitConns lowered it); 0 from one too old to say.
	MaxConns int `json:"max_conns,omitempty"`
	// FilesLimit is the process's open-files limit when it lowered
	// MaxConns.
	FilesLimit uint64 `json:"files_limit,omitempty"`
}

// NewServer builds the API over c, the coordinator. adminToken guards
// eviction on every listener and every request on TCP listeners.
func NewServer(c leasegate.Service, adminToken string, info Health, log hclog.Logger) *Server {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	info.OK, info.API = true, "v1"
	info.MaxConns = MaxConns
	s := &Server{c: c, adminToken: adminToken, log: log.Named("api"), mux: http.NewServeMux(), conns: newConnCounts(), Info: info}
	s.routes()
	return s
}

// LimitConns lowers how many connections the server holds at once, over
// all its listeners, to n (at most MaxConns), and one process's in the
// same proportion (at least 4); Info says it. A process whose open-files limit leaves room for
// fewer than MaxConns calls it before Serve: over its limit, accept fails
// (EMFILE) and every new client waits until a connection ends, where a
// connection over n is closed at once and the coordinator keeps the
// descriptors its own files need.
func (s *Server) LimitConns(n int, filesLimit uint64) {
	s.conns.limit(n)
	s.Info.MaxConns, s.Info.FilesLimit = min(n, MaxConns), filesLimit
}

// Handler returns the API for a listener; tcp requires the bearer token on
// every request.
func (s *Server) Handler(tcp bool) http.Handler {
	if !tcp {
		return s.mux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.bearerOK(r) {
			writeError(w, &gate.DeniedError{Reason: CodeUnauthorized, Message: "missing or wrong bearer token"})
			return
		}
		s.mux.ServeHTTP(w, r)
	})
}

func (s *Server) bearerOK(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && s.adminToken != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.adminToken)) == 1
}

// Serve serves on l until ctx ends, then shuts down: HTTP requests in
// progress get up to 5 s to finish, then streams are closed and Serve
// waits for their requests (whose ctx has ended) to return.
func (s *Server) Serve(ctx context.Context, l net.Listener, tcp bool) error {
	streams := newStreamSet()
	defer streams.close()
	base := context.WithValue(ctx, streamSetKey{}, streams)
	l = &connLimiter{Listener: l, counts: s.conns}
	srv := &http.Server{Handler: s.Handler(tcp), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: maxHeaderBytes,
		BaseContext: func(net.Listener) context.Context { return base }, ConnContext: connContext}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *Server) handle(fn handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		v, err := fn(s.httpCall(r))
		if err != nil {
			s.log.Debug("request failed", "method", r.Method, "path", r.URL.Path, "error", err)
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	switch st := v.(type) {
	case leasegate.Status:
		if n, lease := leasesOf(st); writeStatus(w, status, st, n, lease) {
			return
		}
	case listedStatus:
		if n, lease := st.leases(); writeStatus(w, status, st.Status, n, lease) {
			return
		}
		v = st.expanded()
	}
	body, err := marshalAnswer(v)
	if err != nil {
		status, body = answerError(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// writeStatus sends a status as it is written, its n leases (read by
// lease, not from s) a piece at a time, so that a status of 100,000 leases
// does not hold their ~45 MB of JSON whole in the coordinator. It reports
// false, having sent nothing, when the status must go through
// marshalAnswer; a lease that cannot be written by hand is written by
// encoding/json, which writes the same.
func writeStatus(w http.ResponseWriter, status int, s leasegate.Status, n int, lease nthLease) bool {
	before, after, err := statusAround(s)
	if err != nil {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	buf := append(make([]byte, 0, statusPiece+2*leaseBytes), before...)
	buf = append(buf, '[')
	for i := range n {
		if i > 0 {
			buf = append(buf, ',')
		}
		l := lease(i)
		if buf, err = appendLease(buf, &l); err != nil {
			return true // a time outside years 0 to 9999, which no clock gives: the client reads the cut answer as the error it is
		}
		if len(buf) >= statusPiece {
			if _, err := w.Write(buf); err != nil {
				return true // the caller went away
			}
			buf = buf[:0]
		}
	}
	buf = append(append(append(buf, ']'), after...), '\n')
	_, _ = w.Write(buf)
	return true
}

// statusPiece is how much of a status is written at a time.
const statusPiece = 64 << 10

// answerError is the answer when an answer cannot be encoded.
func answerError(err error) (int, []byte) {
	st, b := errorBody(fmt.Errorf("encode answer: %w", err))
	out, _ := json.Marshal(b) // strings and a lease: always encodes
	return st, out
}

func writeError(w http.ResponseWriter, err error) {
	st, b := errorBody(err)
	writeJSON(w, st, b)
}

// readBody reads a request body whole, bounded by the MaxBytesReader that
// handle puts around it.
func readBody(r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(r.Body)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, &gate.DeniedError{Reason: CodeTooLarge, Message: fmt.Sprintf("request body over %d bytes", mbe.Limit)}
	}
	if err != nil {
		return nil, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "reading request body: " + err.Error()}
	}
	return data, nil
}

// decodeBody decodes a request body of either transport strictly, the
// hot-path requests without reflection when they are in canonical form.
func decodeBody(data []byte, v any) error {
	switch v := v.(type) {
	case *leasegate.MutateRequest:
		return decodeMutateRequest(data, v)
	case *leasegate.LeaseRequest:
		return decodeLeaseRequest(data, v)
	}
	return decodeJSON(bytes.NewReader(data), v)
}

// decodeJSON reads one JSON object strictly with encoding/json.
func decodeJSON(body io.Reader, v any) error {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "malformed request body: " + err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: "malformed request body: trailing data after the JSON object"}
	}
	return nil
}

// pathID is the path wildcard key, which must be a valid id or name.
func (q *call) pathID(key string) (string, error) {
	v := q.path(key)
	if err := gate.ValidID(v); err != nil {
		return "", &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: key + ": " + err.Error()}
	}
	return v, nil
}

// waitFor reads ?timeout= (default and cap MaxWait).
func waitFor(q *call) (time.Duration, error) {
	v := q.query.Get("timeout")
	if v == "" {
		return MaxWait, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: fmt.Sprintf("timeout %q: want a positive duration like 30s", v)}
	}
	return min(d, MaxWait), nil
}

func limitParam(q *call) (int, error) {
	v := q.query.Get("limit")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: fmt.Sprintf("limit %q: want a non-negative integer", v)}
	}
	return n, nil
}

// adminOf returns the admin an eviction is recorded under, or "" when it
// has none. On the unix socket the coordinator itself decides who is an
// operator, from the connection's peer: the name the request gives (or ""
// for "operator") is passed on and no token is needed or looked at. On TCP
// the admin token is the credential.
func (s *Server) adminOf(r *http.Request) string {
	if _, ok := leasegate.PeerOf(r.Context()); ok {
		who := r.Header.Get("X-Leasegate-Admin")
		if gate.ValidID(who) != nil {
			return ""
		}
		return who
	}
	tok := r.Header.Get("X-Leasegate-Admin-Token")
	if tok == "" {
		tok, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	if s.adminToken == "" || tok == "" || subtle.ConstantTimeCompare([]byte(tok), []byte(s.adminToken)) != 1 {
		return ""
	}
	if who := r.Header.Get("X-Leasegate-Admin"); gate.ValidID(who) == nil {
		return who
	}
	return "admin"
}
