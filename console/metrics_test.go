package console_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/console"
	"github.com/leasegate/leasegate/gate"
)

// TestMetricsCountEvents runs the console as `leasegate ui --metrics-addr`
// does and reads the counters the ledger's events move from the
// session-less metrics listener.
func TestMetricsCountEvents(t *testing.T) {
	svc := newFake()
	srv, err := console.New(console.Config{Service: svc, Operator: "olga", Logger: hclog.NewNullLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	mln, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, ln, mln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil after cancel", err)
		}
	}()
	evidence, _ := json.Marshal(gate.Liveness{Status: gate.Dead, Evidence: []string{"pidfd: pid 9 exited"}})
	svc.feed <- gate.Event{Seq: 8, Type: gate.EventGranted, Lease: &gate.Lease{Kind: gate.KindAuto}}
	svc.feed <- gate.Event{Seq: 9, Type: gate.EventContention, Reason: "LEASE_HELD_BY_OTHER"}
	svc.feed <- gate.Event{Seq: 10, Type: gate.EventBlockerResolved, Data: json.RawMessage(`{"id":"B","action":"deny"}`)}
	svc.feed <- gate.Event{Seq: 11, Type: gate.EventReclaimed, Data: evidence}
	want := []string{
		`leasegate_grants_total{kind="auto"} 1`,
		`leasegate_contentions_total{reason="LEASE_HELD_BY_OTHER"} 1`,
		`leasegate_blockers_resolved_total{action="deny"} 1`,
		`leasegate_reclaims_total{source="pidfd"} 1`,
	}
	deadline := time.Now().Add(30 * time.Second)
	var body string
	for time.Now().Before(deadline) {
		body = scrape(t, "http://"+mln.Addr().String()+"/metrics")
		if containsAll(body, want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("metrics lack %v:\n%s", want, body)
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
