package etcd_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/store/etcd"
)

// TestOpenSaysWhyEtcdDidNotAnswer: an etcd that does not answer is
// reported with what a TCP dial meets at each endpoint, not only with
// the client's deadline: nothing listening, or a listener that takes the
// connection and says nothing.
func TestOpenSaysWhyEtcdDidNotAnswer(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().String()
	closed.Close()
	mute, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	accepted := make(chan net.Conn, 16)
	go func() { // ends when mute is closed
		for {
			c, err := mute.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	defer func() {
		for len(accepted) > 0 {
			(<-accepted).Close()
		}
	}()
	for _, tc := range []struct{ endpoint, want string }{
		{"http://" + refused, "connection refused (nothing listens there)"},
		{"http://" + mute.Addr().String(), "accepts connections, so etcd there did not answer"},
	} {
		_, err := etcd.Open(context.Background(), etcd.Config{Endpoints: []string{tc.endpoint}, Workspace: "w", DialTimeout: 500 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), tc.endpoint+": "+tc.want) {
			t.Errorf("Open(%s) = %v, want it to say %q", tc.endpoint, err, tc.want)
		}
	}
}

// TestReadAllSaysAtOnceNothingListens: `ledger check` on a cluster whose
// every endpoint refuses connections says so at once, with the cause,
// instead of after the dial timeout (5 s).
func TestReadAllSaysAtOnceNothingListens(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + closed.Addr().String()
	closed.Close()
	start := time.Now()
	_, err = etcd.ReadAll(context.Background(), etcd.Config{Endpoints: []string{endpoint}, Workspace: "w"}, nil)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), endpoint+": connection refused (nothing listens there)") {
		t.Fatalf("ReadAll(%s) = %v, want it to say nothing listens there", endpoint, err)
	}
	if took > 2*time.Second {
		t.Fatalf("ReadAll(%s) said so after %v, want at once (the dial timeout is 5 s)", endpoint, took)
	}
}
