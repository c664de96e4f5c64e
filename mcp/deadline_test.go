package mcp_test

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/mcp"
)

// silentCoordinator is a socket that takes connections and never
// answers, as a paused (SIGSTOPped) coordinator's does: the kernel
// accepts for it.
func silentCoordinator(t *testing.T) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "c.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return sock
}

// TestCallAnswersWhenCoordinatorIsSilent: a tool call to a coordinator
// that takes the connection and never answers ends at CallTimeout (on the
// injected clock) as COORDINATOR_UNAVAILABLE, naming the wait and that a
// change asked for may still be made, rather than never; whether the
// silence meets the server's first connect (which the call then waits
// behind) or an established client's call.
func TestCallAnswersWhenCoordinatorIsSilent(t *testing.T) {
	w := newWorld(t)
	for _, health := range []bool{true, false} {
		t.Run(map[bool]string{true: "connect", false: "call"}[health], func(t *testing.T) {
			sock := silentCoordinator(t)
			connect := func(ctx context.Context) (mcp.Coordinator, error) {
				cl, err := api.NewClient(api.ClientConfig{Socket: sock, RetryMax: 1})
				if err != nil {
					return nil, err
				}
				if health {
					if _, err := cl.Health(ctx); err != nil {
						cl.Close()
						return nil, err
					}
				}
				return cl, nil
			}
			mock := clock.NewMock()
			s, err := mcp.New(mcp.Config{Connect: connect, Workspace: w.ws, Owner: "alice", Clock: mock, CallTimeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ct, st := sdk.NewInMemoryTransports()
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- s.Run(ctx, st) }()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				stopped := make(chan struct{})
				go func() { _ = cs.Close(); cancel(); <-served; close(stopped) }()
				select {
				case <-stopped:
				case <-time.After(10 * time.Second):
					t.Error("the session did not close: a call to the silent coordinator still holds it")
				}
			})
			answered := make(chan *sdk.CallToolResult, 1)
			go func() {
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "leases_check", Arguments: map[string]any{"paths": []string{"a.go"}}})
				if err != nil {
					t.Errorf("leases_check: protocol error %v", err)
				}
				answered <- res
			}()
			// The call's deadline is set on the mock clock once the call
			// is in; move the clock on until it has met it.
			var res *sdk.CallToolResult
			for i := 0; res == nil; i++ {
				if i == 500 {
					t.Fatalf("leases_check to a silent coordinator has not answered after %s on the clock", 500*30*time.Second)
				}
				select {
				case res = <-answered:
				case <-time.After(10 * time.Millisecond):
					mock.Add(30 * time.Second)
				}
			}
			got := text(res)
			if !res.IsError || !strings.HasPrefix(got, "COORDINATOR_UNAVAILABLE: ") || !strings.Contains(got, "did not answer within 30s") ||
				!strings.Contains(got, "may still be made") {
				t.Errorf("leases_check to a silent coordinator = %q, want COORDINATOR_UNAVAILABLE naming the 30s wait", got)
			}
		})
	}
}
