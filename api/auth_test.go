package api_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
)

// TestTCPRequiresBearerToken: on TCP every request needs the bearer token:
// 401 without it or with a wrong one, 200 with it; the unix socket needs
// none.
func TestTCPRequiresBearerToken(t *testing.T) {
	s := serve(t)
	base := "http://" + s.listen(t, "tcp", "127.0.0.1:0", true)
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	tests := []struct {
		name   string
		auth   string
		status int
	}{
		{name: "no token", auth: "", status: http.StatusUnauthorized},
		{name: "wrong token", auth: "Bearer wrong", status: http.StatusUnauthorized},
		{name: "token without scheme", auth: adminToken, status: http.StatusUnauthorized},
		{name: "empty bearer", auth: "Bearer ", status: http.StatusUnauthorized},
		{name: "right token", auth: "Bearer " + adminToken, status: http.StatusOK},
	}
	for _, tt := range tests {
		for _, path := range []string{"/v1/health", "/v1/status", "/v1/leases"} {
			req, _ := http.NewRequest(http.MethodGet, base+path, nil)
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("%s: GET %s = %d, want %d", tt.name, path, resp.StatusCode, tt.status)
			}
		}
	}
	if _, err := s.client.Status(context.Background()); err != nil {
		t.Fatalf("Status() on the unix socket = %v, want no token needed", err)
	}
}

// TestTCPClient: the client sends its token on TCP; with a wrong one every
// call is refused as UNAUTHORIZED and nothing is granted.
func TestTCPClient(t *testing.T) {
	s := serve(t)
	base := "http://" + s.listen(t, "tcp", "127.0.0.1:0", true)
	ctx := context.Background()
	good := newClient(t, api.ClientConfig{BaseURL: base, Token: adminToken})
	if h, err := good.Health(ctx); err != nil || !h.OK || h.API != "v1" {
		t.Fatalf("Health() over TCP = %+v, %v", h, err)
	}
	if r, err := good.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}}); err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("Mutate over TCP = %s, %v; want granted", r.Outcome, err)
	}
	bad := newClient(t, api.ClientConfig{BaseURL: base, Token: "wrong"})
	r, err := bad.Mutate(ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"b.txt"}})
	var de *gate.DeniedError
	if !errors.As(err, &de) || de.Reason != api.CodeUnauthorized || r.Outcome == leasegate.Granted {
		t.Fatalf("Mutate with a wrong token = %s, %v; want UNAUTHORIZED", r.Outcome, err)
	}
	if s.holds(t, "bob", "b.txt") {
		t.Fatal("a refused TCP request took a lease")
	}
}

// TestTCPWithoutAdminTokenRefusesAll: a server with no admin token serves
// nobody on TCP.
func TestTCPWithoutAdminTokenRefusesAll(t *testing.T) {
	s := serve(t)
	noToken := api.NewServer(s.c, "", api.Health{}, nil)
	for _, auth := range []string{"", "Bearer ", "Bearer " + adminToken} {
		req, _ := http.NewRequest(http.MethodGet, "http://x/v1/health", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		noToken.Handler(true).ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("GET /v1/health with %q on a tokenless TCP server = %d, want 401", auth, rec.Code)
		}
	}
}
