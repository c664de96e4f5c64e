package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
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
	login string            // "" once redeemed
	live  map[string]string // session id -> CSRF token
}

func newSessions() *sessions {
	return &sessions{login: randomToken(), live: make(map[string]string)}
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

// redeem trades the one-time token for a new session id.
func (s *sessions) redeem(tok string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.login == "" || !equal(tok, s.login) {
		return "", false
	}
	s.login = ""
	id := randomToken()
	s.live[id] = randomToken()
	return id, true
}

// csrf returns the CSRF token of the session in r's cookie.
func (s *sessions) csrf(r *http.Request) (string, bool) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	tok, ok := s.live[c.Value]
	return tok, ok
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// sessionCookie is the cookie a redeemed login sets.
func sessionCookie(id string) *http.Cookie {
	return &http.Cookie{Name: cookieName, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode}
}

// loopbackHost reports whether the request was addressed to a loopback
// name, so a page on another site cannot reach the console through DNS
// rebinding.
func loopbackHost(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
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
