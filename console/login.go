package console

import (
	"html/template"
	"net/http"
)

var loginTemplate = template.Must(template.ParseFS(assets, "assets/login.html"))

// session refuses a request without a live session, and beyond loopback
// one whose login did not present the admin token.
func (s *Server) session(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if se, ok := s.auth.session(r); !ok || remote(r) && !se.admin {
			http.Error(w, "no console session: open the login URL that `leasegate ui` printed", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// csrf refuses a state-changing request without the session's CSRF token
// or from another origin.
func (s *Server) csrf(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		se, _ := s.auth.session(r)
		if !equal(r.Header.Get(csrfHeader), se.csrf) || !sameOrigin(r) {
			http.Error(w, "missing or wrong CSRF token", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// login redeems the one-time token for a session cookie. Beyond loopback
// it only checks the token and answers the form that asks for the admin
// token as well: a POST, so the admin token stays out of the URL, the
// browser's history and any log of request lines.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	tok := r.URL.Query().Get("token")
	if !remote(r) {
		s.redeem(w, r, tok, false)
		return
	}
	if !s.auth.valid(tok) {
		refuseLogin(w)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := loginTemplate.Execute(w, struct{ Token string }{tok}); err != nil {
		s.log.Warn("login form not rendered", "error", err)
	}
}

// loginAdmin redeems the one-time token posted with the admin token. A
// wrong admin token leaves the one-time token good, so a mistyped token
// does not need a new `leasegate ui`; the admin token's 256 bits are what
// keep guessing out.
func (s *Server) loginAdmin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if !sameOrigin(r) {
		http.Error(w, "login from another origin", http.StatusForbidden)
		return
	}
	if s.admin == "" || !equal(r.PostFormValue("admin_token"), s.admin) {
		http.Error(w, "wrong admin token: it is in .git/leasegate/admin.token on the console's machine", http.StatusForbidden)
		return
	}
	s.redeem(w, r, r.PostFormValue("token"), true)
}

// redeem trades the one-time token for a session cookie, Secure over TLS.
func (s *Server) redeem(w http.ResponseWriter, r *http.Request, tok string, admin bool) {
	id, ok := s.auth.redeem(tok, admin)
	if !ok {
		refuseLogin(w)
		return
	}
	http.SetCookie(w, sessionCookie(id, r.TLS != nil))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func refuseLogin(w http.ResponseWriter) {
	http.Error(w, "login token unknown or already used: run `leasegate ui` again for a new one", http.StatusForbidden)
}
