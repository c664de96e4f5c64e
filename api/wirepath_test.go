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

// TestUngatedNameCrossesWhole: an ungated write of a name holding a byte
// that is not valid UTF-8 (or a backslash, or a glob character) crosses
// the socket whole: status and the history show the name's pattern as a
// lease of it is spelt (a\xff, not a\ufffd), and a\xff and a\xfe are
// two writes, the one colliding with a lease of its own name.
func TestUngatedNameCrossesWhole(t *testing.T) {
	s := serve(t)
	ctx := context.Background()
	if r := s.mutate(t, "alice", gate.Literal("w/a\xff")); r.Outcome != leasegate.Granted {
		t.Fatalf("Mutate(alice, w/a\\xff) = %s (%s); want granted", r.Outcome, r.Message)
	}
	names := []string{"w/a\xff", "w/a\xfe", `w/b\xff`, "w/[c]"}
	for _, n := range names {
		if err := s.client.ReportUngated(ctx, leasegate.UngatedWrite{Path: n, Op: "shell", Reporter: "bob"}); err != nil {
			t.Fatalf("ReportUngated(%q) = %v", n, err)
		}
	}
	st, err := s.client.Status(ctx)
	if err != nil || len(st.Ungated) != len(names) {
		t.Fatalf("Status = %d ungated writes, %v; want %d", len(st.Ungated), err, len(names))
	}
	for i, n := range names {
		if u := st.Ungated[i]; u.Path != gate.Literal(n) || (u.Lease != nil) != (i == 0) {
			t.Errorf("ungated write %d = %q colliding with %v; want %q colliding with alice's lease only for w/a\\xff", i, u.Path, u.Lease, gate.Literal(n))
		}
	}
	evs, err := s.client.History(ctx, "", gate.Literal("w/a\xfe"), 0)
	if err != nil || len(evs) != 1 || evs[0].Type != gate.EventUngatedWrite || evs[0].Path != gate.Literal("w/a\xfe") {
		t.Errorf("History(w/a\\xfe) = %+v, %v; want its one write.ungated", evs, err)
	}
}
