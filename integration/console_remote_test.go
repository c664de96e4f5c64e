package integration_test

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leasegate/leasegate/internal/nettest"
)

var (
	httpsLoginURL  = regexp.MustCompile(`https://\S+/login\?token=[0-9a-f]+`)
	fingerprintOut = regexp.MustCompile(`fingerprint ((?:[0-9A-F]{2}:){31}[0-9A-F]{2})`)
	metricsURL     = regexp.MustCompile(`metrics on (https://\S+/metrics)`)
)

// remoteUI is a `leasegate ui` serving on an address of a non-loopback
// interface, as its output announced it.
type remoteUI struct {
	ui          *worker
	login       string // the one-time login URL
	base        string // https://host:port
	metrics     string // the metrics listener's /metrics URL
	fingerprint string // the certificate's SHA-256, as printed
}

func startRemoteUI(t *testing.T, r *repo, ip net.IP) remoteUI {
	t.Helper()
	addr := net.JoinHostPort(ip.String(), "0")
	u := remoteUI{ui: r.start("ui", "--addr", addr, "--metrics-addr", addr)}
	eventually(t, 30*time.Second, "the https login URL of leasegate ui", func() bool {
		u.login = httpsLoginURL.FindString(u.ui.out.String())
		return u.login != ""
	})
	out := u.ui.out.String()
	fp, m := fingerprintOut.FindStringSubmatch(out), metricsURL.FindStringSubmatch(out)
	if fp == nil || m == nil {
		t.Fatalf("leasegate ui printed no certificate fingerprint or metrics URL:\n%s", out)
	}
	u.fingerprint, u.metrics = fp[1], m[1]
	u.base = u.login[:strings.Index(u.login, "/login")]
	return u
}

// pinnedClient trusts exactly the certificate whose SHA-256 fingerprint
// is fp, as an operator who compared it does, and keeps cookies; it stops
// at redirects. spki receives the certificate's public key hash.
func pinnedClient(fp string, spki *string) *http.Client {
	verify := func(raw [][]byte, _ [][]*x509.Certificate) error {
		if got := fmt.Sprintf("% X", sha256.Sum256(raw[0])); strings.ReplaceAll(got, " ", ":") != fp {
			return fmt.Errorf("certificate fingerprint %s, want the printed %s", got, fp)
		}
		cert, err := x509.ParseCertificate(raw[0])
		if err != nil {
			return err
		}
		sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
		*spki = base64.StdEncoding.EncodeToString(sum[:])
		return nil
	}
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, VerifyPeerCertificate: verify}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func do(t *testing.T, c *http.Client, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

func loginForm(base, token, admin string) *http.Request {
	form := url.Values{"token": {token}, "admin_token": {admin}}
	req, _ := http.NewRequest(http.MethodPost, base+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req
}

func get(u string) *http.Request { req, _ := http.NewRequest(http.MethodGet, u, nil); return req }

// TestConsoleRemote runs `leasegate ui` on an interface that is not
// loopback: HTTPS only, with a certificate pinned by its printed
// fingerprint that a restart keeps; the login needs the admin token as
// well as the one-time token; the session cookie is Secure; plain HTTP is
// refused; the metrics listener wants the admin token as bearer token.
func TestConsoleRemote(t *testing.T) {
	ip := nettest.NonLoopbackIP(t)
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	for _, args := range [][]string{
		{"ui", "--addr", "0.0.0.0:0"},
		{"ui", "--tls-cert", "c.pem"},
		{"ui", "--tls-cert", "c.pem", "--tls-key", "k.pem"},
	} {
		if out, errs, code := r.lg(args...); code != 2 {
			t.Errorf("leasegate %v: exit %d, want 2 (usage)\n%s%s", args, code, out, errs)
		}
	}
	u := startRemoteUI(t, r, ip)
	var spki string
	c := pinnedClient(u.fingerprint, &spki)
	token := u.login[strings.Index(u.login, "token=")+len("token="):]
	admin, err := os.ReadFile(filepath.Join(r.dir, ".git", "leasegate", "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	adminTok := string(bytes.TrimSpace(admin))

	if resp, body := do(t, http.DefaultClient, get(strings.Replace(u.login, "https://", "http://", 1))); resp.StatusCode == http.StatusOK || !strings.Contains(body, "HTTPS") {
		t.Errorf("login URL over plain HTTP = %s %q, want refused", resp.Status, body)
	}
	if resp, body := do(t, c, get(u.login)); resp.StatusCode != http.StatusOK || !strings.Contains(body, `name="admin_token"`) {
		t.Fatalf("GET login URL = %s, want the form asking for the admin token:\n%s", resp.Status, body)
	}
	if resp, _ := do(t, c, loginForm(u.base, token, "")); resp.StatusCode != http.StatusForbidden {
		t.Errorf("login without the admin token = %s, want 403", resp.Status)
	}
	resp, body := do(t, c, loginForm(u.base, token, adminTok))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login with the admin token = %s, want 303:\n%s", resp.Status, body)
	}
	if cookie := resp.Header.Get("Set-Cookie"); !strings.Contains(cookie, "; Secure") || !strings.Contains(cookie, "HttpOnly") {
		t.Errorf("session cookie %q, want Secure and HttpOnly", cookie)
	}
	if resp, body := do(t, c, get(u.base+"/")); resp.StatusCode != http.StatusOK || !strings.Contains(body, "csrf-token") {
		t.Errorf("GET / in the session = %s, want the page", resp.Status)
	}
	checkRemoteMetrics(t, c, u.metrics, adminTok)

	if err := u.ui.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	u.ui.wait(t, 30*time.Second)
	again := startRemoteUI(t, r, ip)
	if again.fingerprint != u.fingerprint {
		t.Errorf("restarted ui's certificate fingerprint %s, want the first one's %s", again.fingerprint, u.fingerprint)
	}
	loginInBrowser(t, again, adminTok, spki)
}

func checkRemoteMetrics(t *testing.T, c *http.Client, metrics, admin string) {
	t.Helper()
	if resp, _ := do(t, c, get(metrics)); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET %s without the bearer token = %s, want 401", metrics, resp.Status)
	}
	req := get(metrics)
	req.Header.Set("Authorization", "Bearer "+admin)
	if resp, body := do(t, c, req); resp.StatusCode != http.StatusOK || !strings.Contains(body, "leasegate_active_leases") {
		t.Errorf("GET %s with the admin token = %s, want the metrics", metrics, resp.Status)
	}
}

// loginInBrowser logs in to the HTTPS console in Chromium, which trusts
// the certificate by its public key hash, typing the admin token into the
// login form, and sees the page's event stream connect.
func loginInBrowser(t *testing.T, u remoteUI, admin, spki string) {
	t.Helper()
	ctx := browser(t, 2*time.Minute, chromedp.Flag("ignore-certificate-errors-spki-list", spki))
	run(t, ctx, "log in over HTTPS with the admin token", chromedp.Navigate(u.login),
		chromedp.WaitVisible(`#admin_token`, chromedp.ByQuery),
		chromedp.SendKeys(`#admin_token`, admin, chromedp.ByQuery),
		chromedp.Submit(`#admin_token`, chromedp.ByQuery),
		chromedp.WaitVisible(`#conn.on`, chromedp.ByQuery))
}
