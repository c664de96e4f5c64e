package console_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/console"
	"github.com/leasegate/leasegate/internal/nettest"
)

const adminToken = "a0a1a2a3"

// remoteConsole serves a console that knows admin on an address of a
// non-loopback interface, over TLS when secure is set.
func remoteConsole(tb testing.TB, admin string, secure bool) (*console.Server, *httptest.Server, net.IP) {
	tb.Helper()
	ip := nettest.NonLoopbackIP(tb)
	srv, err := console.New(console.Config{Service: newFake(), Operator: "olga", Logger: hclog.NewNullLogger(),
		AdminToken: admin, Hosts: []string{ip.String()}})
	if err != nil {
		tb.Fatal(err)
	}
	return srv, serveOn(tb, ip, srv.Handler(), secure), ip
}

// serveOn serves h on a free port of ip, over TLS with the console's own
// certificate when secure is set; the test server's client trusts it.
func serveOn(tb testing.TB, ip net.IP, h http.Handler, secure bool) *httptest.Server {
	tb.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Listener.Close()
	ts.Listener = ln
	if secure {
		cert, err := console.SelfSignedCert(filepath.Join(tb.TempDir(), "console.pem"), []string{ip.String()}, time.Now())
		if err != nil {
			tb.Fatal(err)
		}
		ts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
		ts.StartTLS()
	} else {
		ts.Start()
	}
	tb.Cleanup(ts.Close)
	return ts
}

// clientOf is ts's client with a cookie jar that stops at redirects.
func clientOf(ts *httptest.Server) *http.Client {
	c := ts.Client()
	c.Jar, _ = cookiejar.New(nil)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

func status(tb testing.TB, c *http.Client, req *http.Request) (*http.Response, string) {
	tb.Helper()
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

func postLogin(ts *httptest.Server, token, admin string) *http.Request {
	form := url.Values{"token": {token}}
	if admin != "" {
		form.Set("admin_token", admin)
	}
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req
}

func TestRemoteLoginNeedsAdminToken(t *testing.T) {
	srv, ts, _ := remoteConsole(t, adminToken, true)
	c := clientOf(ts)
	login := srv.LoginPath()
	tok := strings.TrimPrefix(login, "/login?token=")
	get := func(p string) *http.Request { r, _ := http.NewRequest(http.MethodGet, ts.URL+p, nil); return r }

	if resp, body := status(t, c, get(login)); resp.StatusCode != http.StatusOK || !strings.Contains(body, `name="admin_token"`) {
		t.Fatalf("GET login beyond loopback = %s, want the form asking for the admin token:\n%s", resp.Status, body)
	}
	if resp, _ := status(t, c, get("/")); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET / after only the login URL = %s, want 401: the login URL alone must open nothing", resp.Status)
	}
	for _, tc := range []struct {
		name, admin string
		want        int
	}{
		{name: "no admin token", want: http.StatusForbidden},
		{name: "wrong admin token", admin: "b0b1b2b3", want: http.StatusForbidden},
		{name: "right admin token", admin: adminToken, want: http.StatusSeeOther},
	} {
		resp, body := status(t, c, postLogin(ts, tok, tc.admin))
		if resp.StatusCode != tc.want {
			t.Fatalf("%s: POST /login = %s, want %d\n%s", tc.name, resp.Status, tc.want, body)
		}
		if tc.want == http.StatusSeeOther {
			if cookie := resp.Header.Get("Set-Cookie"); !strings.Contains(cookie, "; Secure") {
				t.Errorf("session cookie %q over TLS lacks Secure", cookie)
			}
		}
	}
	for _, p := range []string{"/", "/metrics"} {
		if resp, _ := status(t, c, get(p)); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s in the session = %s, want 200", p, resp.Status)
		}
	}
}

// TestRemoteRefusedWithoutTLSOrAdminToken: beyond loopback, plain HTTP
// and a console that has no admin token serve nothing, the right
// credentials notwithstanding.
func TestRemoteRefusedWithoutTLSOrAdminToken(t *testing.T) {
	for _, tc := range []struct {
		name   string
		admin  string
		secure bool
	}{
		{name: "plain HTTP", admin: adminToken},
		{name: "no admin token", secure: true},
	} {
		srv, ts, _ := remoteConsole(t, tc.admin, tc.secure)
		c := clientOf(ts)
		tok := strings.TrimPrefix(srv.LoginPath(), "/login?token=")
		for _, req := range []*http.Request{postLogin(ts, tok, adminToken), mustGet(ts.URL + srv.LoginPath())} {
			if resp, body := status(t, c, req); resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s: %s %s = %s, want 403\n%s", tc.name, req.Method, req.URL.Path, resp.Status, body)
			}
		}
		if srv.LoginPath() == "" {
			t.Errorf("%s: a refused login spent the login token", tc.name)
		}
	}
}

func mustGet(u string) *http.Request { r, _ := http.NewRequest(http.MethodGet, u, nil); return r }

// TestRemoteHostCheck: beyond loopback the address the console listens on
// is a host it answers; any other name is refused (DNS rebinding).
func TestRemoteHostCheck(t *testing.T) {
	srv, ts, ip := remoteConsole(t, adminToken, true)
	c := clientOf(ts)
	for _, tc := range []struct {
		host string
		want int
	}{
		{host: "rebound.example", want: http.StatusMisdirectedRequest},
		{host: ip.String(), want: http.StatusOK},
	} {
		req := mustGet(ts.URL + srv.LoginPath())
		req.Host = net.JoinHostPort(tc.host, "443")
		if resp, _ := status(t, c, req); resp.StatusCode != tc.want {
			t.Errorf("GET login with Host %s = %s, want %d", req.Host, resp.Status, tc.want)
		}
	}
}

// TestRemoteMetricsNeedBearer: the separate metrics listener beyond
// loopback wants the admin token as a bearer token, over TLS.
func TestRemoteMetricsNeedBearer(t *testing.T) {
	srv, _, ip := remoteConsole(t, adminToken, true)
	ts := serveOn(t, ip, srv.MetricsHandler(), true)
	plain := serveOn(t, ip, srv.MetricsHandler(), false)
	for _, tc := range []struct {
		name   string
		ts     *httptest.Server
		bearer string
		want   int
	}{
		{name: "no bearer", ts: ts, want: http.StatusUnauthorized},
		{name: "wrong bearer", ts: ts, bearer: "b0b1", want: http.StatusUnauthorized},
		{name: "admin token", ts: ts, bearer: adminToken, want: http.StatusOK},
		{name: "admin token over plain HTTP", ts: plain, bearer: adminToken, want: http.StatusForbidden},
	} {
		req := mustGet(tc.ts.URL + "/metrics")
		if tc.bearer != "" {
			req.Header.Set("Authorization", "Bearer "+tc.bearer)
		}
		if resp, _ := status(t, tc.ts.Client(), req); resp.StatusCode != tc.want {
			t.Errorf("%s: GET /metrics = %s, want %d", tc.name, resp.Status, tc.want)
		}
	}
}

func TestSelfSignedCertKept(t *testing.T) {
	file := filepath.Join(t.TempDir(), "console.pem")
	now := time.Date(2026, 11, 27, 7, 0, 0, 0, time.UTC)
	first, err := console.SelfSignedCert(file, []string{"192.0.2.2", "console.example"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := first.PrivateKey.(*ecdsa.PrivateKey); !ok || k.Curve != elliptic.P256() {
		t.Errorf("key is %T, want ECDSA P-256", first.PrivateKey)
	}
	for _, tc := range []struct {
		name  string
		hosts []string
		now   time.Time
		same  bool
	}{
		{name: "restart", hosts: []string{"192.0.2.2"}, now: now.Add(time.Hour), same: true},
		{name: "another address", hosts: []string{"192.0.2.3"}, now: now},
		{name: "expired", hosts: []string{"192.0.2.3"}, now: now.Add(console.CertValidity + time.Hour)},
	} {
		before, _ := console.SelfSignedCert(file, tc.hosts, tc.now) // the file as the case finds it
		got, err := console.SelfSignedCert(file, tc.hosts, tc.now)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if same := console.Fingerprint(got) == console.Fingerprint(first); same != tc.same {
			t.Errorf("%s: same fingerprint = %v, want %v", tc.name, same, tc.same)
		}
		if console.Fingerprint(before) != console.Fingerprint(got) {
			t.Errorf("%s: a second start changed the fingerprint", tc.name)
		}
	}
}
