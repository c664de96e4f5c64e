package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leasegate/leasegate/gate"
)

// TestClusterWentBackIsSaid: etcd is wiped and started empty at the same
// endpoint while alice holds a check-out of f.txt on the shared ledger.
// Where a user looks, the lost lease is said: status (text and --json),
// doctor, the ledger's history of f.txt and the console's page.
func TestClusterWentBackIsSaid(t *testing.T) {
	etcd := startEtcd(t, 1)
	r := newCheckout(t, map[string]string{"leasegate.json": clusterConfig(etcd, "wentback"), "f.txt": "f\n"})
	r.startServer(retryAfter, idleAfter)
	url := startUI(t, r)
	ctx := browser(t, 2*time.Minute)
	run(t, ctx, "log in", chromedp.Navigate(url), chromedp.WaitVisible(`#conn.on`, chromedp.ByQuery))
	r.mustLG("acquire", "--as", "alice", "f.txt")
	ls := r.status().Leases
	if len(ls) != 1 {
		t.Fatalf("leases after alice's check-out: %+v", ls)
	}
	lost := string(ls[0].ID)
	if err := etcd.WipeMember(0); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "status saying the ledger went back", func() bool { return r.status().WentBack != nil })

	if out := r.mustLG("status"); !strings.Contains(out, "WARNING: the shared ledger went back at") || !strings.Contains(out, "alice's f.txt ("+lost+")") {
		t.Errorf("status after etcd was wiped does not name alice's lost lease %s:\n%s", lost, out)
	}
	if out := r.mustLG("status", "--json"); !strings.Contains(out, `"ledger_went_back"`) || !strings.Contains(out, `"id": "`+lost+`"`) {
		t.Errorf("status --json after etcd was wiped lacks ledger_went_back naming %s:\n%s", lost, out)
	}
	if out, _, _ := r.lg("doctor"); !strings.Contains(out, "coordinator: WARNING: the shared ledger went back") {
		t.Errorf("doctor after etcd was wiped does not say the ledger went back:\n%s", out)
	}
	eventually(t, 30*time.Second, "ledger.went_back in the history of f.txt", func() bool {
		for _, e := range r.history("f.txt") {
			if e.Type == gate.EventLedgerWentBack && string(e.LeaseID) == lost {
				return true
			}
		}
		return false
	})
	var banner string
	run(t, ctx, "the page saying the ledger went back", chromedp.WaitVisible(`#warnings [data-went-back]`, chromedp.ByQuery),
		chromedp.Text(`#warnings [data-went-back]`, &banner, chromedp.ByQuery))
	if !strings.Contains(banner, "leases lost") || !strings.Contains(banner, "alice's f.txt") {
		t.Errorf("the page's warning = %q; want alice's lost lease on f.txt", banner)
	}
	screenshot(t, ctx, "console-went-back.png")
}
