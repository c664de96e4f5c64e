package api_test

import (
	"context"
	"slices"
	"testing"

	"github.com/leasegate/leasegate/api"
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
	join := func(name, want string) {
		t.Helper()
		r := selfRegistration(t, name)
		r.JoinRoot = true
		if got, err := cl.Join(ctx, r); err != nil || got != want {
			t.Fatalf("Join(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	join("cc-pid-1", "cc-pid-1")
	join("cc-s1", "cc-pid-1")
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
