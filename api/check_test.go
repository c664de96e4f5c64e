package api_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
)

// TestCheckOverTheSocket: a check is one request, on the stream when it is
// open and over HTTP without it, answering the leases on the asked paths
// and the caller as whoami names it (from the connection's peer).
func TestCheckOverTheSocket(t *testing.T) {
	s := serve(t)
	ctx := context.Background()
	admin := newClient(t, api.ClientConfig{Socket: s.sock, NoStream: true})
	if r, err := admin.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt", "c.txt"}}); err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("Mutate(alice, a.txt c.txt) = %s, %v", r.Outcome, err)
	}
	if err := admin.Register(ctx, selfRegistration(t, "self")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		noStream               bool
		wantUpgrades, wantPOST int
	}{{noStream: false, wantUpgrades: 1, wantPOST: 0}, {noStream: true, wantUpgrades: 0, wantPOST: 2}} {
		t.Run(fmt.Sprintf("NoStream=%t", tt.noStream), func(t *testing.T) {
			sock, c := serveCounting(t, "unix", filepath.Join(socketDir(t), "check.sock"), s.srv.Handler(false))
			cl := newClient(t, api.ClientConfig{Socket: sock, NoStream: tt.noStream})
			for range 2 {
				v, err := cl.Check(ctx, []string{"a.txt", "b.txt"})
				if err != nil || len(v.Leases) != 1 || v.Leases[0].Owner.Name != "alice" || v.Leases[0].Scope.Paths[0] != "a.txt" {
					t.Fatalf("Check(a.txt, b.txt) leases = %v, %v; want alice's lease of a.txt alone", v.Leases, err)
				}
			}
			// The coordinator's own listener knows the peer.
			v, err := newClient(t, api.ClientConfig{Socket: s.sock, NoStream: tt.noStream}).Check(ctx, []string{"a.txt"})
			if err != nil || !slices.Equal(v.Caller.Owners, []string{"self"}) || v.Caller.Peer == nil || v.Caller.Peer.PID != os.Getpid() {
				t.Fatalf("Check caller = %+v, %v; want owner self from this process's peer", v.Caller, err)
			}
			if up, post := c.count("GET /v1/stream"), c.count("POST /v1/check"); up != tt.wantUpgrades || post != tt.wantPOST {
				t.Fatalf("upgrades %d, POST /v1/check %d; want %d, %d", up, post, tt.wantUpgrades, tt.wantPOST)
			}
		})
	}
	if _, err := admin.Check(ctx, []string{"../x"}); gate.ReasonOf(err) != gate.ReasonOutsideWorkspace {
		t.Errorf("Check(../x) = %v, want %s", err, gate.ReasonOutsideWorkspace)
	}
}
