package api_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
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
	idle := gate.Windows{Idle: gate.Window{After: 5 * time.Second, From: gate.FromEnv}}
	join := func(name, want string, ws gate.Windows) {
		t.Helper()
		r := selfRegistration(t, name)
		r.JoinRoot, r.Windows = true, ws
		if got, err := cl.Join(ctx, r); err != nil || got != want {
			t.Fatalf("Join(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	join("cc-pid-1", "cc-pid-1", gate.Windows{})
	join("cc-s1", "cc-pid-1", idle)
	join("cc-s1", "cc-pid-1", gate.Windows{}) // naming none keeps them
	if w := ownerWindows(t, cl, "cc-pid-1"); w.Idle != idle.Idle {
		t.Errorf("cc-pid-1's idle window after cc-s1 joined naming 5s = %v, want %v: the windows are the joiner's", w.Idle, idle.Idle)
	}
	if err := cl.Register(ctx, selfRegistration(t, "run-a")); err != nil {
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
	join("cc-s2", "cc-s2", gate.Windows{})
}

func ownerWindows(t *testing.T, cl *api.Client, name string) gate.Windows {
	t.Helper()
	st, err := cl.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range st.Owners {
		if o.Name == name {
			return o.Windows
		}
	}
	t.Fatalf("no owner %s in status", name)
	return gate.Windows{}
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
