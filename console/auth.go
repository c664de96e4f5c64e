package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// cookieName is the session cookie: HttpOnly, SameSite=Strict, path /.
const cookieName = "leasegate_console"

// csrfHeader carries the session's CSRF token on every state-changing
// request; the page reads it from its <meta name="csrf-token">.
const csrfHeader = "X-CSRF-Token"

// sessions holds the one-time login token and the sessions it began. A
// login token is good for one session: once redeemed it is gone, so a URL
// left in a terminal's scrollback or a shell history opens nothing.
type sessions struct {
	mu    sync.Mutex
	login string             // "" once redeemed
	live  map[string]session // by session id
}

// session is a live console session.
type session struct {
	csrf  string
	admin bool // its login also presented the admin token
}

func newSessions() *sessions {
	return &sessions{login: randomToken(), live: make(map[string]session)}
}

// randomToken returns 32 random bytes as hex. crypto/rand.Read never
// fails on Linux and panics elsewhere rather than return weak bytes.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// loginToken returns the one-time token, or "" once it was redeemed.
func (s *sessions) loginToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.login
}

// valid reports whether tok is the one-time token, not yet redeemed.
func (s *sessions) valid(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.login != "" && equal(tok, s.login)
}

// redeem trades the one-time token for a new session id; admin records
// that the login also presented the admin token.
func (s *sessions) redeem(tok string, admin bool) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.login == "" || !equal(tok, s.login) {
		return "", false
	}
	s.login = ""
	id := randomToken()
	s.live[id] = session{csrf: randomToken(), admin: admin}
	return id, true
}

// session returns the session in r's cookie.
func (s *sessions) session(r *http.Request) (session, bool) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return session{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	se, ok := s.live[c.Value]
	return se, ok
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// sessionCookie is the cookie a redeemed login sets; over TLS it is also
// Secure, so the browser never sends it over plain HTTP.
func sessionCookie(id string, secure bool) *http.Cookie {
	return &http.Cookie{Name: cookieName, Value: id, Path: "/", HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode}
}

// knownHost reports whether the request was addressed to a loopback name
// or one of hosts (those of the address the console listens on), so a page
// on another site cannot reach the console through DNS rebinding.
func knownHost(r *http.Request, hosts []string) bool {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" || slices.ContainsFunc(hosts, func(h string) bool { return strings.EqualFold(h, host) }) {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// remote reports whether r reached the console on an address that is not
// loopback: such a request is served only over TLS and only with the admin
// token. A connection whose local address is unknown counts as remote.
func remote(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	return !ok || !a.IP.IsLoopback()
}

// bearer returns the token of r's `Authorization: Bearer` header.
func bearer(r *http.Request) string {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return tok
}

// sameOrigin reports whether a state-changing request came from the
// console's own page: an Origin header, when the browser sends one, names
// the host the request was sent to.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}
