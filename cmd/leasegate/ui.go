package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate/console"
	"github.com/leasegate/leasegate/workspace"
)

// uiFlags are the flags of `leasegate ui`.
type uiFlags struct {
	common
	addr        string
	metricsAddr string
	tlsCert     string
	tlsKey      string
	open        bool
}

// cmdUI serves the operator console, in this process, talking to the
// coordinator over its unix socket as `leasegate status` and `resolve` do.
// On loopback it speaks plain HTTP; on any other address HTTPS, and its
// login asks for the admin token as well.
func cmdUI(ctx context.Context, args []string) error {
	var f uiFlags
	fs := flag.NewFlagSet("ui", flag.ContinueOnError)
	f.register(fs, false)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:0", "address to serve the console on (port 0: a free port); beyond loopback: HTTPS and the admin token")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "also serve /metrics alone on this address (for a Prometheus scraper): on loopback without a session, beyond it over HTTPS with the admin token as bearer token")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "PEM certificate for a non-loopback address (default: a self-signed one kept in the state directory)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
	fs.BoolVar(&f.open, "open", false, "open the login URL in a browser (xdg-open)")
	if err := parseNone("ui", fs, args); err != nil {
		return err
	}
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return usagef("ui: --tls-cert and --tls-key go together")
	}
	lns, err := f.listen()
	if err != nil {
		return err
	}
	defer closeAll(lns)
	// Reaching the coordinator is the one wait before the console serves:
	// said after slowCommand, and plainly when interrupted, as the
	// commands the coordinator answers at once do.
	stopNote := noteSlow(clock.New(), os.Stderr, "ui", slowCommand)
	cl, ws, err := f.client(ctx)
	stopNote()
	if err != nil {
		return interrupted(ctx, "ui", err)
	}
	defer cl.Close()
	sec, err := f.secure(ws, lns)
	if err != nil {
		return err
	}
	srv, err := console.New(console.Config{Service: cl, Operator: operatorName(), Logger: f.logger("leasegate"),
		AdminToken: sec.admin, Hosts: lns[0].hosts(), Ledger: namedLedger(ws), AskCluster: oneCluster})
	if err != nil {
		return err
	}
	a := uiAnnounced(ws, lns, sec, srv.LoginPath())
	if err := f.announce(a, lns); err != nil {
		return err
	}
	if f.open {
		openBrowser(ctx, a.LoginURL, os.Stderr)
	}
	return srv.Run(ctx, lns[0], listeners(lns[1:])...)
}

// uiAnnouncement is what `ui` says once it serves: where, the one-time
// login URL, and beyond loopback what the operator checks and types.
type uiAnnouncement struct {
	Workspace      string `json:"workspace"`
	URL            string `json:"url"`
	LoginURL       string `json:"login_url"`
	MetricsURL     string `json:"metrics_url,omitempty"`
	Fingerprint    string `json:"fingerprint,omitempty"`
	AdminTokenFile string `json:"admin_token_file,omitempty"`
}

func uiAnnounced(ws *workspace.Workspace, lns []*uiListener, sec uiSecurity, loginPath string) uiAnnouncement {
	a := uiAnnouncement{Workspace: ws.Root, URL: lns[0].url(), LoginURL: lns[0].url() + loginPath}
	if sec.admin != "" {
		a.Fingerprint = console.Fingerprint(sec.cert)
	}
	if len(lns) > 1 {
		a.MetricsURL = lns[1].url() + "/metrics"
	}
	if lns[0].remote {
		a.AdminTokenFile = ws.AdminTokenPath()
	}
	return a
}

// announce prints a: under --json as one JSON line, which a script reads
// while ui goes on serving; else as lines for a person.
func (f *uiFlags) announce(a uiAnnouncement, lns []*uiListener) error {
	if f.jsonOut {
		b, err := json.Marshal(a)
		if err != nil {
			return err
		}
		_, err = fmt.Printf("%s\n", b)
		return err
	}
	fmt.Printf("console of %s on %s\n", a.Workspace, a.URL)
	if a.Fingerprint != "" {
		fmt.Printf("certificate SHA-256 fingerprint %s (check it in the browser before you log in)\n", a.Fingerprint)
	}
	if a.MetricsURL != "" {
		fmt.Printf("metrics on %s%s\n", a.MetricsURL, bearerHint(lns[1]))
	}
	fmt.Printf("open (once; the token is then spent): %s\n", a.LoginURL)
	if a.AdminTokenFile != "" {
		fmt.Printf("the login page asks for the admin token: the contents of %s on this machine\n", a.AdminTokenFile)
	}
	return nil
}

// uiListener is one address `ui` serves on.
type uiListener struct {
	net.Listener
	host   string // as the flag named it
	remote bool   // not on loopback: HTTPS, and the admin token
}

// hosts are the names a request to l may be addressed to: the one the
// flag gave and the address it resolved to.
func (l *uiListener) hosts() []string {
	ip := l.Addr().(*net.TCPAddr).IP.String()
	if ip == l.host {
		return []string{ip}
	}
	return []string{l.host, ip}
}

func (l *uiListener) url() string {
	scheme := "http"
	if l.remote {
		scheme = "https"
	}
	port := l.Addr().(*net.TCPAddr).Port
	return fmt.Sprintf("%s://%s", scheme, net.JoinHostPort(l.host, strconv.Itoa(port)))
}

func bearerHint(l *uiListener) string {
	if l.remote {
		return " (Authorization: Bearer <admin token>)"
	}
	return ""
}

func listeners(lns []*uiListener) []net.Listener {
	out := make([]net.Listener, len(lns))
	for i, l := range lns {
		out[i] = l
	}
	return out
}

// listen opens the console's listener and, with --metrics-addr, the
// metrics one. Each is remote when the address it bound is not loopback.
func (f *uiFlags) listen() ([]*uiListener, error) {
	addrs := []string{f.addr}
	names := []string{"--addr"}
	if f.metricsAddr != "" {
		addrs, names = append(addrs, f.metricsAddr), append(names, "--metrics-addr")
	}
	var lns []*uiListener
	for i, a := range addrs {
		host, err := listenHost(a)
		if err != nil {
			closeAll(lns)
			return nil, usagef("ui: %s %s: %v", names[i], a, err)
		}
		ln, err := net.Listen("tcp", a)
		if err != nil {
			closeAll(lns)
			return nil, fmt.Errorf("ui: %s: %w", names[i], err)
		}
		lns = append(lns, &uiListener{Listener: ln, host: host, remote: !ln.Addr().(*net.TCPAddr).IP.IsLoopback()})
	}
	return lns, nil
}

// listenHost returns the host of a host:port listen address. It refuses
// an address without a host or with an unspecified one (0.0.0.0, ::): the
// console's certificate and its Host check (the DNS-rebinding defence)
// need the one name or address operators use.
func listenHost(a string) (string, error) {
	if err := checkListenAddr(a); err != nil {
		return "", err
	}
	host, _, _ := net.SplitHostPort(a)
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		return "", fmt.Errorf("name one interface's address or host name, not all interfaces: the console's certificate and Host check need the name operators use")
	}
	return host, nil
}

// checkListenAddr refuses a TCP listen address that is not HOST:PORT
// with a port number (or service name) that can be bound.
func checkListenAddr(a string) error {
	_, port, err := net.SplitHostPort(a)
	if err != nil {
		return err
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return err
	}
	return nil
}

// uiSecurity is what a console beyond loopback needs: the admin token its
// logins ask for and the certificate its listeners present.
type uiSecurity struct {
	admin string
	cert  tls.Certificate
}

// secure puts every remote listener behind TLS, with the operator's
// certificate or the console's own kept in the state directory, and reads
// the admin token; with no remote listener it returns the zero value, and
// --tls-cert is a usage error.
func (f *uiFlags) secure(ws *workspace.Workspace, lns []*uiListener) (uiSecurity, error) {
	var hosts []string
	for _, l := range lns {
		if l.remote {
			hosts = append(hosts, l.hosts()...)
		}
	}
	if hosts == nil {
		if f.tlsCert != "" {
			return uiSecurity{}, usagef("ui: --tls-cert is for an --addr or --metrics-addr beyond loopback; loopback is served over plain HTTP")
		}
		return uiSecurity{}, nil
	}
	admin, err := ws.AdminToken()
	if err != nil {
		return uiSecurity{}, fmt.Errorf("ui: %w", err)
	}
	cert, err := f.certificate(ws, hosts)
	if err != nil {
		return uiSecurity{}, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	for _, l := range lns {
		if l.remote {
			l.Listener = tls.NewListener(l.Listener, cfg)
		}
	}
	return uiSecurity{admin: admin, cert: cert}, nil
}

// certificate is the operator's --tls-cert, else the console's own.
func (f *uiFlags) certificate(ws *workspace.Workspace, hosts []string) (tls.Certificate, error) {
	if f.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("ui: --tls-cert %s, --tls-key %s: %w", f.tlsCert, f.tlsKey, err)
		}
		return cert, nil
	}
	cert, err := console.SelfSignedCert(filepath.Join(ws.StateDir, "console.pem"), hosts, time.Now())
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("ui: %w", err)
	}
	return cert, nil
}

func closeAll(lns []*uiListener) {
	for _, ln := range lns {
		_ = ln.Close()
	}
}

// openBrowser starts xdg-open on url and says on w when it cannot start
// it or it fails (no browser to hand the URL to: a server, a container);
// the URL is printed either way. The returned channel is closed once
// xdg-open has ended and that is said.
func openBrowser(ctx context.Context, url string, w io.Writer) <-chan struct{} {
	done := make(chan struct{})
	cmd := exec.CommandContext(ctx, "xdg-open", url)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(w, "leasegate: --open: %v; open the URL above yourself\n", err)
		close(done)
		return done
	}
	go func() { // ends when xdg-open hands over to the browser, or with ui
		defer close(done)
		if err := cmd.Wait(); err != nil && ctx.Err() == nil {
			fmt.Fprintf(w, "leasegate: --open: xdg-open found no browser to open the URL (%v); open the URL above yourself\n", err)
		}
	}()
	return done
}
