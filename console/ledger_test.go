package console_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/console"
)

// TestLedgerChangedSaidAndResolutionsRefused: a console started on the
// ledger LEASEGATE_CLUSTER named, whose coordinator is replaced by one
// serving another ledger, says so on the page instead of showing that
// coordinator's state, and refuses resolutions until a coordinator of its
// ledger answers again.
func TestLedgerChangedSaidAndResolutionsRefused(t *testing.T) {
	named := &leasegate.LedgerView{Endpoints: []string{"http://10.0.0.1:2379"}, Workspace: "acme/web", From: "LEASEGATE_CLUSTER"}
	svc := newFake()
	svc.serve(named)
	srv, ts := mustConsole(t, svc, func(cfg *console.Config) { cfg.Ledger = named })
	c, tok := mustLogin(t, srv, ts)
	if name, data := firstEvent(t, c, ts.URL); name != "snapshot" {
		t.Fatalf("first event on the named ledger = %s %s, want the snapshot", name, data)
	}

	svc.serve(&leasegate.LedgerView{File: "/ws/.git/leasegate/ledger.db"})
	if name, data := firstEvent(t, c, ts.URL); name != "ledger-changed" || !strings.Contains(data, "ledger.db") || !strings.Contains(data, "acme/web") {
		t.Fatalf("first event once another ledger is served = %s %s, want ledger-changed naming both ledgers", name, data)
	}
	if code, body := postResolve(t, c, ts.URL, tok); code != http.StatusConflict || !strings.Contains(body, "ledger.db") {
		t.Fatalf("resolve on another ledger = %d %s, want 409 naming the ledger served", code, body)
	}
	if got := svc.resolutions(); len(got) != 0 {
		t.Fatalf("resolutions reached a coordinator of another ledger: %+v", got)
	}

	svc.serve(named)
	if code, body := postResolve(t, c, ts.URL, tok); code != http.StatusOK {
		t.Fatalf("resolve once the named ledger is served again = %d %s, want 200", code, body)
	}
}

// TestLedgerOnOtherAddressServed: a coordinator serving the console's
// workspace on other endpoints is shown when etcd says they reach the
// console's cluster, and said on the page, with the cause, when etcd
// could not be asked.
func TestLedgerOnOtherAddressServed(t *testing.T) {
	named := &leasegate.LedgerView{Endpoints: []string{"http://127.0.0.1:2379"}, Workspace: "acme/web", From: "LEASEGATE_CLUSTER"}
	svc := newFake()
	svc.serve(&leasegate.LedgerView{Endpoints: []string{"http://localhost:2379"}, Workspace: "acme/web"})
	var down error
	ask := func(_ context.Context, a, b []string) (bool, error) { return down == nil, down }
	srv, ts := mustConsole(t, svc, func(cfg *console.Config) { cfg.Ledger, cfg.AskCluster = named, ask })
	c, tok := mustLogin(t, srv, ts)
	if name, data := firstEvent(t, c, ts.URL); name != "snapshot" {
		t.Fatalf("first event on the named cluster by another address = %s %s, want the snapshot", name, data)
	}
	if code, body := postResolve(t, c, ts.URL, tok); code != http.StatusOK {
		t.Fatalf("resolve on the named cluster by another address = %d %s, want 200", code, body)
	}

	down = errors.New("etcd unreachable")
	if name, data := firstEvent(t, c, ts.URL); name != "ledger-changed" || !strings.Contains(data, "could not be asked: etcd unreachable") {
		t.Fatalf("first event when etcd cannot be asked = %s %s, want ledger-changed saying why", name, data)
	}
}

// firstEvent opens the page's event stream and returns its first event.
func firstEvent(t *testing.T, c *http.Client, base string) (name, data string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/events", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return eventReader(t, resp.Body)()
}

// postResolve posts a deny of blocker B1 as the page does.
func postResolve(t *testing.T, c *http.Client, base, tok string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/blockers/B1/resolve", strings.NewReader(`{"action":"deny"}`))
	req.Header.Set("X-CSRF-Token", tok)
	req.Header.Set("Origin", base)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
