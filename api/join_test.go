package api_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// TestJoinTheOwnerOfTheSameProcess: a registration that asks to join is
// answered with the live owner already registered for the same root
// process, which the kernel shows the caller runs under (this process),
// and registers nothing; one that does not ask, or finds that owner
// ended, registers its own name.
func TestJoinTheOwnerOfTheSameProcess(t *testing.T) {
	s := serve(t)
	ctx := context.Background()
	cl := newClient(t, api.ClientConfig{Socket: s.sock})
	start, err := liveness.ProcessStart(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	self := func(name string) leasegate.Registration {
		return leasegate.Registration{Owner: gate.Owner{Name: name, PID: os.Getpid(), StartTime: start}, JoinRoot: true}
	}
	join := func(name, want string) {
		t.Helper()
		if got, err := cl.Join(ctx, self(name)); err != nil || got != want {
			t.Fatalf("Join(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	join("cc-pid-1", "cc-pid-1")
	join("cc-s1", "cc-pid-1")
	runA := self("run-a")
	runA.JoinRoot = false
	if err := cl.Register(ctx, runA); err != nil {
		t.Fatalf("Register(run-a) without joining = %v", err)
	}
	if got := ownerNames(t, cl); slices.Contains(got, "cc-s1") || !slices.Contains(got, "cc-pid-1") || !slices.Contains(got, "run-a") {
		t.Fatalf("owners %v, want cc-pid-1 and run-a and no cc-s1 (it joined cc-pid-1)", got)
	}
	for _, name := range []string{"cc-pid-1", "run-a"} {
		if _, err := cl.End(ctx, name, "test"); err != nil {
			t.Fatalf("End(%s) = %v", name, err)
		}
	}
	join("cc-s2", "cc-s2")
}

func ownerNames(t *testing.T, cl *api.Client) []string {
	t.Helper()
	st, err := cl.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range st.Owners {
		names = append(names, o.Name)
	}
	return names
}
