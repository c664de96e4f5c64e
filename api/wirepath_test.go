package api_test

import (
	"context"
	"slices"
	"testing"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestNamesDifferingInBytesCrossAsTwo: two owners' writes of names that
// differ only in a byte that is not valid UTF-8 cross the socket as two
// patterns and are two leases, whether the caller escaped the byte
// (gate.Literal, as a sidecar does) or sent it raw in a pattern; the
// caller's slice is left as it was.
func TestNamesDifferingInBytesCrossAsTwo(t *testing.T) {
	for _, tt := range []struct {
		name   string
		ff, fe string
	}{
		{"escaped", gate.Literal("dir/a\xff"), gate.Literal("dir/a\xfe")},
		{"raw", "raw/a\xff", "raw/a\xfe"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t)
			paths := []string{tt.ff}
			r, err := s.client.Mutate(context.Background(), leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: paths})
			if err != nil || r.Outcome != leasegate.Granted {
				t.Fatalf("Mutate(alice, %q) = %s, %v; want granted", tt.ff, r.Outcome, err)
			}
			if want := []string{tt.ff}; !slices.Equal(paths, want) {
				t.Errorf("Mutate changed its caller's paths to %q", paths)
			}
			if r := s.mutate(t, "bob", tt.fe); r.Outcome != leasegate.Granted {
				t.Fatalf("Mutate(bob, %q) = %s (%s); want granted: a\\xfe is not alice's a\\xff", tt.fe, r.Outcome, r.Message)
			}
			for owner, p := range map[string]string{"alice": tt.ff, "bob": tt.fe} {
				if !s.holds(t, owner, gate.WirePath(p)) {
					t.Errorf("%s holds no lease at %q", owner, gate.WirePath(p))
				}
			}
		})
	}
}
