//go:build linux || darwin || freebsd

package api

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/leasegate/leasegate"
)

// TestConnContextCarriesTheKernelsPeer: a request on a unix socket carries
// the connecting process as the kernel reports it (SO_PEERCRED on Linux,
// LOCAL_PEERPID and LOCAL_PEERCRED on macOS, LOCAL_PEERCRED's cr_pid on
// FreeBSD 13+), in plain HTTP and after the connection is hijacked (as the
// stream upgrade does).
func TestConnContextCarriesTheKernelsPeer(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ConnContext: connContext, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := leasegate.PeerOf(r.Context())
		answer := fmt.Sprintf("%v %d %d %d", ok, p.PID, p.UID, p.GID)
		if r.URL.Path == "/hijack" {
			conn, brw, _ := w.(http.Hijacker).Hijack()
			defer conn.Close()
			_, _ = brw.WriteString("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: " + fmt.Sprint(len(answer)) + "\r\n\r\n" + answer)
			_ = brw.Flush()
			return
		}
		_, _ = io.WriteString(w, answer)
	})}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	defer func() { _ = srv.Shutdown(context.Background()); <-done }()
	cl := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	defer cl.CloseIdleConnections()
	want := fmt.Sprintf("true %d %d %d", os.Getpid(), os.Geteuid(), os.Getegid())
	for _, path := range []string{"/plain", "/hijack"} {
		res, err := cl.Get("http://unix" + path)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(got) != want {
			t.Errorf("peer seen by %s = %q, want %q", path, got, want)
		}
	}
}
