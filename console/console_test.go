package console_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/console"
	"github.com/leasegate/leasegate/gate"
)

// mustConsole starts a console over svc on an httptest server.
func mustConsole(tb testing.TB, svc console.Service, edits ...func(*console.Config)) (*console.Server, *httptest.Server) {
	tb.Helper()
	cfg := console.Config{Service: svc, Operator: "olga", Logger: hclog.NewNullLogger()}
	for _, edit := range edits {
		edit(&cfg)
	}
	srv, err := console.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	tb.Cleanup(ts.Close)
	return srv, ts
}

// mustLogin redeems the one-time URL and returns a client with the
// session cookie and the page's CSRF token.
func mustLogin(tb testing.TB, srv *console.Server, ts *httptest.Server) (*http.Client, string) {
	tb.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(ts.URL + srv.LoginPath())
	if err != nil {
		tb.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("login: %s\n%s", resp.Status, page)
	}
	_, rest, ok := strings.Cut(string(page), `name="csrf-token" content="`)
	if !ok {
		tb.Fatalf("page has no csrf token:\n%s", page)
	}
	tok, _, _ := strings.Cut(rest, `"`)
	return c, tok
}

func TestNothingServedWithoutSession(t *testing.T) {
	_, ts := mustConsole(t, newFake())
	for _, p := range []string{"/", "/static/app.js", "/events", "/history?path=a", "/metrics"} {
		resp, err := http.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without session = %s, want 401", p, resp.Status)
		}
	}
	resp, err := http.Post(ts.URL+"/blockers/B1/resolve", "application/json", strings.NewReader(`{"action":"deny"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST resolve without session = %s, want 401", resp.Status)
	}
}

func TestLoginTokenIsOneTime(t *testing.T) {
	srv, ts := mustConsole(t, newFake())
	login := srv.LoginPath()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		name string
		path string
		want int
	}{
		{name: "wrong token", path: "/login?token=00", want: http.StatusForbidden},
		{name: "first use", path: login, want: http.StatusSeeOther},
		{name: "second use", path: login, want: http.StatusForbidden},
	} {
		resp, err := noRedirect.Get(ts.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Fatalf("%s: GET login = %s, want %d", tc.name, resp.Status, tc.want)
		}
		if tc.want != http.StatusSeeOther {
			continue
		}
		cookie := resp.Header.Get("Set-Cookie")
		for _, attr := range []string{"HttpOnly", "SameSite=Strict", "Path=/"} {
			if !strings.Contains(cookie, attr) {
				t.Errorf("session cookie %q lacks %s", cookie, attr)
			}
		}
	}
	if srv.LoginPath() != "" {
		t.Errorf("LoginPath() = %q after the token was spent, want \"\"", srv.LoginPath())
	}
}

func TestResolveNeedsCSRF(t *testing.T) {
	svc := newFake()
	srv, ts := mustConsole(t, svc)
	c, tok := mustLogin(t, srv, ts)
	for _, tc := range []struct {
		name   string
		token  string
		origin string
		want   int
	}{
		{name: "no token", want: http.StatusForbidden},
		{name: "wrong token", token: "x" + tok, want: http.StatusForbidden},
		{name: "other origin", token: tok, origin: "http://evil.example", want: http.StatusForbidden},
		{name: "right token", token: tok, origin: ts.URL, want: http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/blockers/B1/resolve", strings.NewReader(`{"action":"deny","note":"n"}`))
		if tc.token != "" {
			req.Header.Set("X-CSRF-Token", tc.token)
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: POST resolve = %s, want %d", tc.name, resp.Status, tc.want)
		}
	}
	got := svc.resolutions()
	if len(got) != 1 || got[0].Action != "deny" || got[0].By != "olga" || got[0].Note != "n" {
		t.Fatalf("resolutions = %+v, want one deny by olga with note n", got)
	}
}

func TestForeignHostRefused(t *testing.T) {
	srv, ts := mustConsole(t, newFake())
	req, _ := http.NewRequest(http.MethodGet, ts.URL+srv.LoginPath(), nil)
	req.Host = "rebound.example:80"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("GET with Host %s = %s, want 421", req.Host, resp.Status)
	}
	if srv.LoginPath() == "" {
		t.Fatal("a refused request spent the login token")
	}
}

func TestEventsStream(t *testing.T) {
	svc := newFake()
	next := mustEvents(t, svc)
	if name, data := next(); name != "snapshot" || !strings.Contains(data, `"src/a.go"`) {
		t.Fatalf("first event %s %s, want the snapshot with src/a.go", name, data)
	}
	svc.feed <- gate.Event{Seq: 5, Type: gate.EventGranted} // before the snapshot: skipped
	svc.feed <- gate.Event{Seq: 8, Type: gate.EventReleased, LeaseID: "L1"}
	svc.feed <- gate.Event{Seq: 9, Type: gate.EventOwnerStopped, Actor: "alice"}
	want := []string{`ledger {"seq":8`, `ledger {"seq":9`, "state "}
	for _, w := range want {
		name, data := next()
		if got := name + " " + data; !strings.HasPrefix(got, w) {
			t.Fatalf("event %.60s, want %s...", got, w)
		}
	}
}

func TestHistoryAndMetrics(t *testing.T) {
	srv, ts := mustConsole(t, newFake())
	c, _ := mustLogin(t, srv, ts)
	for _, tc := range []struct {
		path string
		want string
	}{
		{path: "/history?path=src%2Fa.go", want: `"path":"src/a.go"`},
		{path: "/metrics", want: `leasegate_active_leases{kind="auto"} 1`},
		{path: "/metrics", want: `leasegate_owners{liveness="alive"} 1`},
		{path: "/metrics", want: "go_goroutines"},
		{path: "/metrics", want: `leasegate_coordinator_commit_latency_seconds_bucket{le="0.01"} 3`},
		{path: "/metrics", want: "leasegate_coordinator_journal_headroom_bytes 4096"},
		{path: "/metrics", want: `leasegate_coordinator_commit_batch_events_bucket{le="8"} 2`},
		{path: "/metrics", want: "leasegate_coordinator_commit_batch_events_sum 7"},
	} {
		resp, err := c.Get(ts.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), tc.want) {
			t.Errorf("GET %s: %s, lacks %s:\n%.400s", tc.path, resp.Status, tc.want, body)
		}
	}
}

// mustEvents opens a logged-in page's event stream on a console over svc
// and returns its reader (eventReader); the stream ends with the test.
func mustEvents(t *testing.T, svc *fakeService, edits ...func(*console.Config)) func() (name, data string) {
	t.Helper()
	srv, ts := mustConsole(t, svc, edits...)
	c, _ := mustLogin(t, srv, ts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/events", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q, want text/event-stream", ct)
	}
	return eventReader(t, resp.Body)
}

// eventReader returns a function that reads the next server-sent event
// of body, failing the test if the stream ends first.
func eventReader(t *testing.T, body io.Reader) func() (name, data string) {
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	return func() (name, data string) {
		t.Helper()
		for sc.Scan() {
			line := sc.Text()
			if line == "" && name != "" {
				return name, data
			}
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok {
				data = v
			}
		}
		t.Fatalf("stream ended: %v", sc.Err())
		return "", ""
	}
}
