package integration_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"
)

// TestClusterFromEnvUISaysAnotherLedger: `leasegate ui` started with
// LEASEGATE_CLUSTER, whose coordinator is replaced by one started without
// it (on the clone's own file), says so on the page instead of showing
// that coordinator's state, and refuses a resolution from the page.
func TestClusterFromEnvUISaysAnotherLedger(t *testing.T) {
	r, plain := namedClusterCheckout(t, "ui-swap")
	ui := r.start("ui")
	var url string
	eventually(t, 30*time.Second, "the login URL of leasegate ui", func() bool {
		url = loginURL.FindString(ui.out.String())
		return url != ""
	})
	base := url[:strings.Index(url, "/login")]
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, rest, _ := strings.Cut(string(page), `name="csrf-token" content="`)
	csrf, _, _ := strings.Cut(rest, `"`)
	if name := firstPageEvent(t, c, base); name != "snapshot" {
		t.Fatalf("first page event on the cluster's coordinator = %s, want the snapshot", name)
	}

	r.replaceWithFileCoordinator(plain)
	eventually(t, 15*time.Second, "the page told of another ledger", func() bool {
		return firstPageEvent(t, c, base) == "ledger-changed"
	})
	req, _ := http.NewRequest(http.MethodPost, base+"/blockers/01ARZ3NDEKTSV4RRFFQ69G5FAV/resolve", strings.NewReader(`{"action":"deny"}`))
	req.Header.Set("X-CSRF-Token", csrf)
	req.Header.Set("Origin", base)
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), "ledger.db") || !strings.Contains(string(body), `"ui-swap"`) {
		t.Fatalf("resolve from the page on the file's coordinator = %s %s; want 409 naming both ledgers", resp.Status, body)
	}
}

// firstPageEvent opens the page's event stream and returns the name of
// its first event.
func firstPageEvent(t *testing.T, c *http.Client, base string) string {
	t.Helper()
	resp, err := c.Get(base + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			return name
		}
	}
	return ""
}
