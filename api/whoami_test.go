package api_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// TestWhoamiOverTheSocket: the coordinator names a caller from its
// connection's peer (SO_PEERCRED) over HTTP and the stream alike: this
// process is an operator until an owner whose root it is registers, and
// then that owner, refused as any other.
func TestWhoamiOverTheSocket(t *testing.T) {
	s := serve(t)
	ctx := context.Background()
	cl := newClient(t, api.ClientConfig{Socket: s.sock, NoStream: true})
	v, err := cl.Whoami(ctx)
	if err != nil || !v.Operator || len(v.Owners) != 0 || v.Peer == nil || v.Peer.PID != os.Getpid() || v.Peer.UID != uint32(os.Geteuid()) {
		t.Fatalf("Whoami() before registering = %+v, %v; want an operator, pid %d", v, err, os.Getpid())
	}
	if err := cl.Register(ctx, selfRegistration(t, "self")); err != nil {
		t.Fatal(err)
	}
	for _, noStream := range []bool{true, false} {
		c := newClient(t, api.ClientConfig{Socket: s.sock, NoStream: noStream})
		if v, err := c.Whoami(ctx); err != nil || v.Operator || !slices.Equal(v.Owners, []string{"self"}) || v.RootPID != os.Getpid() {
			t.Errorf("Whoami() as self's root = %+v, %v; want owner self", v, err)
		}
		_, err := c.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"x.txt"}})
		if !errors.Is(err, gate.ErrOwnerMismatch) {
			t.Errorf("Mutate as alice from self's root (stream %v) = %v, want OWNER_MISMATCH", !noStream, err)
		}
	}
}

// selfRegistration registers name with this process (the test's, the
// socket's peer) as its root.
func selfRegistration(t *testing.T, name string) leasegate.Registration {
	t.Helper()
	start, err := liveness.ProcessStart(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return leasegate.Registration{Owner: gate.Owner{Name: name, PID: os.Getpid(), StartTime: start}}
}
