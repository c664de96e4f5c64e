package integration_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumProgram is the headless browser the console tests drive: the
// path in LEASEGATE_TEST_CHROMIUM (which .ci/run sets after installing
// Debian's chromium), else chromium on PATH.
func chromiumProgram(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("LEASEGATE_TEST_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("LEASEGATE_TEST_CHROMIUM=%s: %v", p, err)
		}
		return p
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (.ci/run installs Debian's chromium and sets LEASEGATE_TEST_CHROMIUM)")
	}
	return p
}

var loginURL = regexp.MustCompile(`http://\S+/login\?token=[0-9a-f]+`)

// startUI runs `leasegate ui` in the repo and returns its login URL.
func startUI(t *testing.T, r *repo) string {
	t.Helper()
	ui := r.start("ui")
	var url string
	eventually(t, 30*time.Second, "the login URL of leasegate ui", func() bool {
		url = loginURL.FindString(ui.out.String())
		return url != ""
	})
	return url
}

// browser starts headless chromium at 1280×800 for the test, with extra
// options.
func browser(t *testing.T, within time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumProgram(t)),
		chromedp.NoSandbox, chromedp.WindowSize(1280, 800), chromedp.Flag("disable-dev-shm-usage", true))
	opts = append(opts, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), within)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	return bctx
}

// screenshotDir is where the console tests save their screenshots:
// LEASEGATE_SCREENSHOTS (the README's come from docs/), else a temp dir.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("LEASEGATE_SCREENSHOTS"); d != "" {
		return d
	}
	return t.TempDir()
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(screenshotDir(t), name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

// TestConsoleInBrowser logs in through the one-time URL, sees a worker's
// lease appear live, another worker's contention count down to its retry
// and become a blocker, denies it from the page and sees the held write
// fail with EBUSY; requests without the session or the CSRF token are
// refused.
func TestConsoleInBrowser(t *testing.T) {
	r := newRepo(t, map[string]string{"src/app/main.go": "package main\n", "docs/guide.md": "# guide\n"})
	url := startUI(t, r)
	base := url[:strings.Index(url, "/login")]
	ctx := browser(t, 3*time.Minute)
	run(t, ctx, "log in", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(url), chromedp.WaitVisible(`#conn.on`, chromedp.ByQuery))

	r.worker("alice", "echo new > src/app/main.go && echo more > docs/guide.md && sleep 120")
	run(t, ctx, "alice's lease appears", chromedp.WaitVisible(`li.leaf[data-path="src/app/main.go"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`li.leaf[data-path="docs/guide.md"]`, chromedp.ByQuery))

	bob := r.start("run", "--as", "bob", "--retry-after", "10s", "--", "sh", "-c", "echo bob > src/app/main.go; echo exit=$?")
	var countdown string
	run(t, ctx, "bob's contention counts down", chromedp.WaitVisible(`[data-contention] .countdown`, chromedp.ByQuery),
		chromedp.Text(`[data-contention] .countdown`, &countdown, chromedp.ByQuery))
	if !regexp.MustCompile(`^\d+s$`).MatchString(countdown) {
		t.Errorf("contention countdown reads %q, want seconds", countdown)
	}
	screenshot(t, ctx, "console-contention.png")

	run(t, ctx, "bob's blocker opens", chromedp.WaitVisible(`[data-blocker-id] button[data-action="deny"]`, chromedp.ByQuery))
	screenshot(t, ctx, "console-blocker.png")
	refuseWithoutSessionOrCSRF(t, ctx, base)

	run(t, ctx, "deny from the page", chromedp.Click(`[data-blocker-id] button[data-action="deny"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`button[data-confirm="deny"]`, chromedp.ByQuery),
		chromedp.SendKeys(`.confirming input`, "alice owns main.go today", chromedp.ByQuery),
		chromedp.Click(`button[data-confirm="deny"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-result="ok"]`, chromedp.ByQuery))
	bob.wait(t, 30*time.Second)
	if out := bob.out.String(); !strings.Contains(out, "EBUSY") || strings.Contains(out, "exit=0") {
		t.Errorf("bob's denied write did not fail with EBUSY:\n%s", out)
	}
	if got := r.read("src/app/main.go"); got != "new\n" {
		t.Errorf("src/app/main.go = %q after the deny, want alice's %q", got, "new\n")
	}
	checkResolvedBy(t, r)
	checkMetrics(t, ctx)

	run(t, ctx, "a path's history", chromedp.Click(`li.leaf[data-path="src/app/main.go"] button.path`, chromedp.ByQuery),
		chromedp.WaitVisible(`#history-events li b`, chromedp.ByQuery))
	screenshot(t, ctx, "console-history.png")
	run(t, ctx, "close history", chromedp.Click(`#history-close`, chromedp.ByQuery))
	screenshot(t, ctx, "console-leases.png")
	run(t, ctx, "phone width", chromedp.EmulateViewport(390, 844), chromedp.Sleep(300*time.Millisecond))
	screenshot(t, ctx, "console-phone.png")
	logLatency(t, ctx)
}

// refuseWithoutSessionOrCSRF checks that the page's own fetch without the
// CSRF header is refused, and a request without the session cookie too.
func refuseWithoutSessionOrCSRF(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	var status int
	run(t, ctx, "a POST without the CSRF token", chromedp.Evaluate(
		`fetch(document.querySelector("[data-blocker-id]").dataset.blockerId ? "/blockers/" + document.querySelector("[data-blocker-id]").dataset.blockerId + "/resolve" : "/", {method: "POST", headers: {"Content-Type": "application/json"}, body: '{"action":"deny"}'}).then(r => r.status)`,
		&status, awaitPromise))
	if status != http.StatusForbidden {
		t.Errorf("POST resolve from the page without the CSRF token = %d, want 403", status)
	}
	for _, p := range []string{"/", "/events", "/metrics"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the session = %s, want 401", p, resp.Status)
		}
	}
}

// checkMetrics reads /metrics with the page's session: the counters the
// test's events moved, the gauges, and the coordinator's process.
func checkMetrics(t *testing.T, ctx context.Context) {
	t.Helper()
	want := []string{`leasegate_grants_total{kind="auto"}`, `leasegate_contentions_total{reason="LEASE_HELD_BY_OTHER"} 1`,
		`leasegate_blockers_opened_total 1`, `leasegate_blockers_resolved_total{action="deny"} 1`,
		`leasegate_active_leases{kind="auto"} 3`, `leasegate_owners{liveness="alive"}`,
		"leasegate_coordinator_process_resident_memory_bytes", "go_goroutines",
		"leasegate_coordinator_commit_latency_seconds_count", "leasegate_coordinator_journal_headroom_bytes", "leasegate_coordinator_goroutines"}
	var text string
	eventually(t, 30*time.Second, "the metrics of the test's events", func() bool {
		run(t, ctx, "fetch /metrics", chromedp.Evaluate(`fetch("/metrics").then(r => r.text())`, &text, awaitPromise))
		for _, w := range want {
			if !strings.Contains(text, w) {
				return false
			}
		}
		return true
	})
}

// checkResolvedBy: the ledger records the page's resolution as the
// operator's, with the note.
func checkResolvedBy(t *testing.T, r *repo) {
	t.Helper()
	out := r.mustLG("events", "--json")
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `"blocker.resolved"`) && strings.Contains(line, `"action":"deny"`) &&
			strings.Contains(line, "alice owns main.go today") {
			return
		}
	}
	t.Errorf("no blocker.resolved deny with the page's note in the ledger:\n%s", out)
}

// logLatency reports how long ledger events took from commit to the page.
func logLatency(t *testing.T, ctx context.Context) {
	t.Helper()
	var lat []float64
	run(t, ctx, "read latencies", chromedp.Evaluate(`window.leasegate.latencies`, &lat))
	if len(lat) == 0 {
		t.Fatal("the page applied no ledger event")
	}
	t.Logf("event-to-page latency over %d events: %s", len(lat), summarize(lat))
}

func summarize(ms []float64) string {
	var max, sum float64
	for _, v := range ms {
		sum += v
		if v > max {
			max = v
		}
	}
	return fmt.Sprintf("mean %.0f ms, max %.0f ms", sum/float64(len(ms)), max)
}
