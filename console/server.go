package console

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate"
)

// Server is the console: a handler per view behind one access rule.
type Server struct {
	svc      Service
	operator string
	log      hclog.Logger
	admin    string                // "" serves loopback only
	hosts    []string              // besides loopback names
	ledger   *leasegate.LedgerView // nil: whichever the coordinator serves
	ask      leasegate.ClusterAsker
	auth     *sessions
	metrics  *metrics
	mux      *http.ServeMux
	clock    clock.Clock
}

// New returns a console for cfg.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.New()
	}
	s := &Server{svc: cfg.Service, operator: cfg.Operator, log: cfg.Logger.Named("console"),
		admin: cfg.AdminToken, hosts: cfg.Hosts, ledger: cfg.Ledger, ask: cfg.AskCluster, auth: newSessions(), clock: cfg.Clock}
	s.metrics = newMetrics(cfg.Service, cfg.Registry)
	s.routes()
	return s, nil
}

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /login", s.login)
	s.mux.HandleFunc("POST /login", s.loginAdmin)
	s.mux.Handle("GET /{$}", s.session(http.HandlerFunc(s.page)))
	s.mux.Handle("GET /static/", s.session(http.StripPrefix("/static/", staticFiles())))
	s.mux.Handle("GET /events", s.session(http.HandlerFunc(s.events)))
	s.mux.Handle("GET /history", s.session(http.HandlerFunc(s.history)))
	s.mux.Handle("POST /blockers/{id}/resolve", s.session(s.csrf(http.HandlerFunc(s.resolve))))
	s.mux.Handle("GET /metrics", s.session(s.metrics.handler()))
}

// LoginPath is the one-time login URL's path and query, or "" once the
// token was redeemed.
func (s *Server) LoginPath() string {
	tok := s.auth.loginToken()
	if tok == "" {
		return ""
	}
	return "/login?token=" + tok
}

// Handler serves the console.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !knownHost(r, s.hosts) {
			http.Error(w, "the console answers only requests addressed to a loopback host or the address it listens on", http.StatusMisdirectedRequest)
			return
		}
		if remote(r) && !s.secure(w, r) {
			return
		}
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
		s.mux.ServeHTTP(w, r)
	})
}

// MetricsHandler serves /metrics alone, for a separate --metrics-addr
// that a Prometheus scraper reaches: on loopback without a credential,
// beyond it over TLS with the admin token as a bearer token.
func (s *Server) MetricsHandler() http.Handler {
	h := s.metrics.handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if remote(r) && !s.secure(w, r) {
			return
		}
		if remote(r) && !equal(bearer(r), s.admin) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="leasegate"`)
			http.Error(w, "metrics beyond loopback need Authorization: Bearer <admin token>", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// secure refuses a request that reached the console beyond loopback over
// plain HTTP, or when the console has no admin token to ask for: the
// login token, the session cookie and the admin token never cross a
// network in clear.
func (s *Server) secure(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case r.TLS == nil:
		http.Error(w, "beyond loopback the console answers HTTPS only", http.StatusForbidden)
	case s.admin == "":
		http.Error(w, "this console has no admin token to ask for: it serves loopback only", http.StatusForbidden)
	default:
		return true
	}
	return false
}

// Run follows the coordinator's events for the metrics and serves the
// console on ln, and /metrics alone on each of metrics, until ctx ends;
// then every open page stream ends with it.
func (s *Server) Run(ctx context.Context, ln net.Listener, metrics ...net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 2+len(metrics))
	run := func(f func(context.Context) error) { errs <- f(ctx) }
	go run(s.metrics.follow)
	go run(func(ctx context.Context) error { return serve(ctx, ln, s.Handler()) })
	for _, m := range metrics {
		go run(func(ctx context.Context) error { return serve(ctx, m, s.MetricsHandler()) })
	}
	var first error
	for range 2 + len(metrics) {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
		cancel() // one ending ends the others
	}
	return first
}

// serve serves h on ln until ctx ends, then shuts the server down; the
// requests still open (page streams) see ctx end with it.
func serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	shut, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	_ = srv.Shutdown(shut)
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
