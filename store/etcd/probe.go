package etcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/connectivity"

	"github.com/leasegate/leasegate/internal/neterr"
)

// probeTimeout bounds each endpoint's TCP dial in probe.
const probeTimeout = time.Second

// probe says what a plain TCP dial from this machine meets at each
// endpoint, for the error of an etcd that did not answer: the client only
// reports its own deadline, while the cause a user can act on is most
// often here (nothing listens, a name that does not resolve, a port a
// firewall drops). An endpoint that takes the connection is said to, so
// the cause lies further in (no leader or quorum, TLS, another service).
func probe(endpoints []string) string {
	out := make([]string, len(endpoints))
	for i, ep := range endpoints {
		out[i] = ep + ": " + probeOne(ep)
	}
	return "TCP dial from this machine: " + strings.Join(out, "; ")
}

func probeOne(endpoint string) string {
	host, ok := dialAddr(endpoint)
	if !ok {
		return "not a URL with a host"
	}
	c, err := net.DialTimeout("tcp", host, probeTimeout)
	if err != nil {
		return dialCause(err)
	}
	c.Close()
	return "accepts connections, so etcd there did not answer (no leader or quorum, TLS, or not etcd)"
}

// headUnlessRefused reads the head within DialTimeout, giving up as soon
// as a TCP dial finds that no endpoint can be reached at all (each refuses
// or does not resolve), which it then says: a command that only reads
// says so at once rather than after the client's deadline. An endpoint
// that takes the connection or does not answer leaves the read to run.
func (l *Ledger) headUnlessRefused(ctx context.Context) (seq uint64, rev int64, refused string, err error) {
	hctx, cancel := context.WithTimeout(ctx, l.cfg.DialTimeout)
	defer cancel()
	var why atomic.Pointer[string]
	probed := make(chan struct{})
	go func() { // ends with its dials, each bounded by probeTimeout
		defer close(probed)
		if s, ok := noneReachable(hctx, l.cfg.Endpoints); ok {
			why.Store(&s)
			cancel()
		}
	}()
	seq, rev, err = l.head(hctx)
	cancel()
	<-probed
	if s := why.Load(); s != nil && err != nil {
		return 0, 0, *s, err
	}
	return seq, rev, "", err
}

// noneReachable reports whether every endpoint refuses a TCP connection
// or does not resolve, and what a dial met at each.
func noneReachable(ctx context.Context, endpoints []string) (string, bool) {
	out := make([]string, len(endpoints))
	for i, ep := range endpoints {
		host, ok := dialAddr(ep)
		if !ok {
			return "", false
		}
		d := net.Dialer{Timeout: probeTimeout}
		c, err := d.DialContext(ctx, "tcp", host)
		if err == nil {
			c.Close()
			return "", false
		}
		var dns *net.DNSError
		if !neterr.Refused(err) && !errors.As(err, &dns) {
			return "", false
		}
		out[i] = ep + ": " + dialCause(err)
	}
	return "TCP dial from this machine: " + strings.Join(out, "; "), true
}

// dialAddr is the host:port an endpoint URL names (etcd's port 2379 when
// it names none).
func dialAddr(endpoint string) (string, bool) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return "", false
	}
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "2379"), true
	}
	return u.Host, true
}

// dialCause is a dial error in a user's words.
func dialCause(err error) string {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case neterr.Refused(err):
		return "connection refused (nothing listens there)"
	case errors.As(err, &dns):
		return "the name does not resolve (" + dns.Err + ")"
	case errors.As(err, &ne) && ne.Timeout():
		return "no answer within " + probeTimeout.String() + " (host down or a firewall drops it)"
	}
	return err.Error()
}

// Unreachable says why etcd cannot be reached now, from what the client
// knows without sending a request: non-nil while it has failed to connect
// to every endpoint and is waiting to try again, or while the session's
// keep-alives go unanswered.
// A caller about to read with something locked asks it first, so that an
// outage costs it nothing; a read may still meet one that has just begun,
// and is bounded by DialTimeout.
func (l *Ledger) Unreachable() error {
	switch st := l.cli.ActiveConnection().GetState(); st {
	case connectivity.TransientFailure, connectivity.Shutdown:
		return fmt.Errorf("etcd at %v unreachable (client connection %s)", l.cfg.Endpoints, strings.ToLower(st.String()))
	}
	if quiet := l.keepAliveQuiet(); quiet > 0 {
		return fmt.Errorf("etcd at %v unreachable (no keep-alive answered for %v, one is due every %v)", l.cfg.Endpoints, quiet.Round(100*time.Millisecond), l.cfg.SessionTTL/3)
	}
	return nil
}

// keepAliveQuiet is how long the live session has gone without a
// keep-alive answer, once that is over two of the keep-alive periods
// (a third of the TTL each); zero before. gRPC reports a connection lost
// as idle until something asks again, so its state alone can say nothing
// is wrong for a while.
func (l *Ledger) keepAliveQuiet() time.Duration {
	l.sessMu.Lock()
	s := l.sess
	l.sessMu.Unlock()
	if !s.live {
		return 0
	}
	since := trusted(l.cfg.SessionTTL) - time.Until(s.until)
	if since <= 2*l.cfg.SessionTTL/3 {
		return 0
	}
	return since
}
