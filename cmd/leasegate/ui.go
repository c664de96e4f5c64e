package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"

	"github.com/leasegate/leasegate/console"
)

// uiFlags are the flags of `leasegate ui`.
type uiFlags struct {
	common
	addr        string
	metricsAddr string
	open        bool
}

// cmdUI serves the operator console on loopback, in this process, talking
// to the coordinator over its unix socket as `leasegate status` and
// `resolve` do.
func cmdUI(ctx context.Context, args []string) error {
	var f uiFlags
	fs := flag.NewFlagSet("ui", flag.ContinueOnError)
	f.register(fs, false)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:0", "loopback address to serve the console on (port 0: a free port)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "also serve /metrics alone, without a session, on this loopback address (for a Prometheus scraper)")
	fs.BoolVar(&f.open, "open", false, "open the login URL in a browser (xdg-open)")
	pos, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("ui: takes no arguments, got %q", pos[0])
	}
	lns, err := f.listen()
	if err != nil {
		return err
	}
	defer closeAll(lns)
	cl, ws, err := f.client(ctx)
	if err != nil {
		return err
	}
	defer cl.Close()
	srv, err := console.New(console.Config{Service: cl, Operator: operatorName(), Logger: f.logger("leasegate")})
	if err != nil {
		return err
	}
	url := fmt.Sprintf("http://%s%s", lns[0].Addr(), srv.LoginPath())
	fmt.Printf("console of %s on http://%s\n", ws.Root, lns[0].Addr())
	if len(lns) > 1 {
		fmt.Printf("metrics on http://%s/metrics\n", lns[1].Addr())
	}
	fmt.Printf("open (once; the token is then spent): %s\n", url)
	if f.open {
		openBrowser(ctx, url)
	}
	return srv.Run(ctx, lns[0], lns[1:]...)
}

// listen opens the console's listener and, with --metrics-addr, the
// metrics one; both must be loopback addresses.
func (f *uiFlags) listen() ([]net.Listener, error) {
	addrs := []string{f.addr}
	names := []string{"--addr"}
	if f.metricsAddr != "" {
		addrs, names = append(addrs, f.metricsAddr), append(names, "--metrics-addr")
	}
	var lns []net.Listener
	for i, a := range addrs {
		if err := loopbackAddr(a); err != nil {
			closeAll(lns)
			return nil, usagef("ui: %s %s: %v", names[i], a, err)
		}
		ln, err := net.Listen("tcp", a)
		if err != nil {
			closeAll(lns)
			return nil, fmt.Errorf("ui: %s: %w", names[i], err)
		}
		lns = append(lns, ln)
	}
	return lns, nil
}

// loopbackAddr refuses an address that is not host:port on a loopback
// interface: the console's login is a bearer token in a URL, which must
// not cross a network.
func loopbackAddr(a string) error {
	host, _, err := net.SplitHostPort(a)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("not a loopback address: the console serves 127.0.0.1, ::1 or localhost only")
	}
	return nil
}

func closeAll(lns []net.Listener) {
	for _, ln := range lns {
		_ = ln.Close()
	}
}

// operatorName is who resolutions from the page are recorded as: the
// user running `leasegate ui`.
func operatorName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if n := os.Getenv("USER"); n != "" {
		return n
	}
	return fmt.Sprintf("uid %d", os.Getuid())
}

// openBrowser starts xdg-open on url and says so when it cannot; the URL
// is printed either way.
func openBrowser(ctx context.Context, url string) {
	cmd := exec.CommandContext(ctx, "xdg-open", url)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "leasegate: --open: %v; open the URL above yourself\n", err)
		return
	}
	go func() { _ = cmd.Wait() }() // ends when xdg-open hands over to the browser
}
