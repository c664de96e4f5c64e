package gate_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// TestTableKeepsEveryField grants leases of every shape the ledger may hold
// and checks that the table gives each back exactly as granted: the table
// keeps leases in a compact form, and expanding it must lose nothing (ids,
// times with their location and monotonic reading, unknown kinds and scope
// types, fields a grant does not usually set).
func TestTableKeepsEveryField(t *testing.T) {
	now := time.Now() // local, with a monotonic reading
	base := func(id gate.LeaseID) gate.Lease {
		return gate.Lease{ID: id, Owner: gate.Owner{Name: "alice"}, Kind: gate.KindAuto, Scope: fileScope("src/a.go"),
			State: gate.StateActive, FencingToken: 1, AcquiredAt: t0, LastHeartbeatAt: t0}
	}
	with := func(id gate.LeaseID, change func(l *gate.Lease)) gate.Lease {
		l := base(id)
		change(&l)
		return l
	}
	tests := []struct {
		name  string
		lease gate.Lease
	}{
		{"ULID", base("01ARZ3NDEKTSV4RRFFQ69G5FAV")},
		{"lowest ULID", base("00000000000000000000000000")},
		{"highest ULID", base("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")},
		{"ULID text over 128 bits", base("8ZZZZZZZZZZZZZZZZZZZZZZZZZ")},
		{"lower-case ULID", base("01arz3ndektsv4rrffq69g5fav")},
		{"ULID with a letter Crockford leaves out", base("01ARZ3NDEKTSV4RRFFQ69G5FIV")},
		{"25 characters", base("01ARZ3NDEKTSV4RRFFQ69G5FA")},
		{"27 characters", base("01ARZ3NDEKTSV4RRFFQ69G5FAVV")},
		{"short id", base("L1")},
		{"owner with liveness handle", with("01ARZ3NDEKTSV4RRFFQ69G5FB0", func(l *gate.Lease) { l.Owner = owner("alice") })},
		{"check-out renewed and reminded", with("01ARZ3NDEKTSV4RRFFQ69G5FB1", func(l *gate.Lease) {
			l.Kind, l.Scope = gate.KindCheckout, sparse("docs/**", "src/*.go")
			l.ExpiresAt, l.RenewalCount, l.ReminderSent = t0.Add(72*time.Hour), 3, true
			l.LastHeartbeatAt = t0.Add(time.Hour)
		})},
		{"unknown kind and scope type", with("01ARZ3NDEKTSV4RRFFQ69G5FB2", func(l *gate.Lease) {
			l.Kind, l.Scope = "future", gate.Scope{Type: "tree", Paths: []string{"a", "b/c"}}
		})},
		{"no paths", with("01ARZ3NDEKTSV4RRFFQ69G5FB3", func(l *gate.Lease) { l.Scope = gate.Scope{Type: gate.ScopeSparse, Paths: []string{}} })},
		{"empty path", with("01ARZ3NDEKTSV4RRFFQ69G5FB4", func(l *gate.Lease) { l.Scope = fileScope("") })},
		{"full scope", with("01ARZ3NDEKTSV4RRFFQ69G5FB5", func(l *gate.Lease) { l.Scope = fullScope() })},
		{"local times with monotonic readings", with("01ARZ3NDEKTSV4RRFFQ69G5FB6", func(l *gate.Lease) {
			l.AcquiredAt, l.LastHeartbeatAt, l.ExpiresAt = now, now, now.Add(time.Hour)
		})},
		{"heartbeat at the same instant elsewhere", with("01ARZ3NDEKTSV4RRFFQ69G5FB7", func(l *gate.Lease) {
			l.LastHeartbeatAt = t0.Local()
		})},
		{"file identities", with("01ARZ3NDEKTSV4RRFFQ69G5FB9", func(l *gate.Lease) {
			l.Scope = sparse("docs/**", "src/a.go")
			l.Scope.Files = []gate.File{{Path: "src/a.go", Dev: 2049, Ino: 1 << 40}}
		})},
		{"new directory", with("01ARZ3NDEKTSV4RRFFQ69G5FBA", func(l *gate.Lease) {
			l.Scope, l.NewDir = sparse("own/**"), true
		})},
		{"ending fields on a grant", with("01ARZ3NDEKTSV4RRFFQ69G5FB8", func(l *gate.Lease) {
			l.ReleaseReason, l.EndedBy, l.TerminatedAt = "carried", "someone", t0.Add(time.Minute)
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := gate.NewTable()
			l := tt.lease
			if err := tb.Apply(gate.Event{Seq: 1, Type: gate.EventGranted, At: t0, Lease: &l}); err != nil {
				t.Fatalf("Apply(grant) = %v, want nil", err)
			}
			want := tt.lease
			want.Scope.Paths = append([]string(nil), want.Scope.Paths...) // no paths read back as nil
			if got, ok := tb.Lease(l.ID); !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("Lease(%q) = %#v, %v, want %#v", l.ID, got, ok, want)
			}
			if got := tb.All(); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
				t.Fatalf("All() = %#v, want [%#v]", got, want)
			}
			if got := tb.ActiveList(); got.Len() != 1 || !reflect.DeepEqual(got.Lease(0), want) {
				t.Fatalf("ActiveList() = %d leases, first %#v, want [%#v]", got.Len(), got.Lease(0), want)
			}
			if len(l.Scope.Paths) > 0 && l.Scope.Paths[0] != "" || l.Scope.Type == gate.ScopeFull {
				if got := tb.Overlapping(l.Scope); len(got) != 1 || got[0].ID != l.ID {
					t.Errorf("Overlapping(%v) = %v, want the lease", l.Scope, got)
				}
			}
		})
	}
}

// TestTableFindsIDsExactly checks that an id finds its lease and no other
// spelling does: ULIDs are kept as bits, other ids as text.
func TestTableFindsIDsExactly(t *testing.T) {
	tb := gate.NewTable()
	ids := []gate.LeaseID{"01ARZ3NDEKTSV4RRFFQ69G5FAV", "01arz3ndektsv4rrffq69g5fbv", "01ARZ3NDEKTSV4RRFFQ69G5FIV"}
	for i, id := range ids {
		e := grantEvent(id, "alice", uint64(i+1), fileScope(fmt.Sprintf("f%d", i)), time.Time{})
		if err := tb.Apply(e); err != nil {
			t.Fatalf("Apply(grant %s) = %v, want nil", id, err)
		}
	}
	for _, id := range ids {
		if l, ok := tb.Lease(id); !ok || l.ID != id {
			t.Errorf("Lease(%q) = %q, %v, want it", id, l.ID, ok)
		}
	}
	for _, id := range []gate.LeaseID{"01arz3ndektsv4rrffq69g5fav", "01ARZ3NDEKTSV4RRFFQ69G5FBV", "01ARZ3NDEKTSV4RRFFQ69G5F1V", "01ARZ3NDEKTSV4RRFFQ69G5FA", ""} {
		if l, ok := tb.Lease(id); ok {
			t.Errorf("Lease(%q) = %q, want none", id, l.ID)
		}
	}
	e := grantEvent("01ARZ3NDEKTSV4RRFFQ69G5FAV", "alice", 9, fileScope("g"), time.Time{})
	if err := tb.Apply(e); err == nil {
		t.Errorf("Apply(grant of an existing ULID) = nil, want %v", gate.ErrLeaseExists)
	}
}

// TestTablePruneKeepsTheRest grants tens of thousands of leases, ends and prunes a
// random part of them, and checks that every lease left is found by id,
// owner and path, and that pruned ids are gone and may be granted again.
func TestTablePruneKeepsTheRest(t *testing.T) {
	r := testRand(t)
	w := newWorld(t)
	const n = 20_000 // enough for the id index and the endings to shrink after the last Prune
	id := func(i int) gate.LeaseID {
		if i%3 == 0 {
			return gate.LeaseID(fmt.Sprintf("lease-%d", i)) // not a ULID
		}
		return gate.LeaseID(fmt.Sprintf("01JKW7%020d", i))
	}
	path := func(i int) string { return fmt.Sprintf("d%d/f%d", i%7, i) }
	for i := range n {
		w.mustApply(grantEvent(id(i), fmt.Sprint("agent", i%5), uint64(i+1), fileScope(path(i)), time.Time{}))
	}
	pruned := map[int]bool{}
	for _, i := range r.Perm(n)[:2*n/3] {
		end := t0.Add(time.Duration(i) * time.Second)
		w.mustApply(gate.Event{Type: gate.EventReleased, At: end, Actor: fmt.Sprint("agent", i%5), LeaseID: id(i)})
		pruned[i] = i < n/2
	}
	checkActive(t, w.table)
	if got := w.table.Prune(t0.Add(n / 2 * time.Second)); got != countTrue(pruned) {
		t.Fatalf("Prune() = %d, want %d", got, countTrue(pruned))
	}
	for i := range n {
		l, ok := w.table.Lease(id(i))
		if _, ended := pruned[i]; pruned[i] == ok || ok && (l.FencingToken != uint64(i+1) || l.State == gate.StateActive == ended) {
			t.Fatalf("Lease(%s) = %+v, %v; want pruned %v, ended %v", id(i), l, ok, pruned[i], ended)
		}
	}
	if want := n - countTrue(pruned); w.table.Len() != want {
		t.Fatalf("Len() = %d, want %d", w.table.Len(), want)
	}
	for o := range 5 {
		var want []gate.LeaseID
		for i := o; i < n; i += 5 {
			if _, ended := pruned[i]; !ended {
				want = append(want, id(i))
			}
		}
		if got := leaseIDs(w.table.ByOwner(fmt.Sprint("agent", o))); !slices.Equal(got, want) {
			t.Fatalf("ByOwner(agent%d) = %d leases, want %d", o, len(got), len(want))
		}
	}
	for i := range n {
		_, ended := pruned[i]
		if got := w.table.Overlapping(fileScope(path(i))); ended == (len(got) == 1) {
			t.Fatalf("Overlapping(%s) = %v, want the lease unless it ended", path(i), leaseIDs(got))
		}
	}
	next := w.table.LastToken()
	for i := range n {
		if pruned[i] {
			next++
			w.mustApply(grantEvent(id(i), "again", next, fileScope(path(i)), time.Time{}))
			if l, ok := w.table.Lease(id(i)); !ok || l.Owner.Name != "again" {
				t.Fatalf("Lease(%s) after a new grant = %+v, %v", id(i), l, ok)
			}
		}
	}
	checkActive(t, w.table)
	for _, l := range w.table.Active() {
		w.mustApply(gate.Event{Type: gate.EventReleased, At: t0, Actor: l.Owner.Name, LeaseID: l.ID})
	}
	checkActive(t, w.table)
	if before, got := w.table.Len(), w.table.Prune(t0.Add(n*time.Second)); got != before || w.table.Len() != 0 {
		t.Fatalf("Prune(all) = %d of %d, leaving %d", got, before, w.table.Len())
	}
	for i := range n {
		if l, ok := w.table.Lease(id(i)); ok {
			t.Fatalf("Lease(%s) after pruning all = %+v, want none", id(i), l)
		}
	}
	w.mustApply(grantEvent(id(7), "last", w.table.LastToken()+1, fileScope(path(7)), time.Time{}))
	if l, ok := w.table.Lease(id(7)); !ok || l.Owner.Name != "last" || len(w.table.All()) != 1 {
		t.Fatalf("Lease(%s) in an emptied table = %+v, %v", id(7), l, ok)
	}
}

// TestTableLargeDirectory leases hundreds of files and subdirectories of
// one directory, some paths twice, and checks Overlapping against a scan
// of every active lease as they are granted and released.
func TestTableLargeDirectory(t *testing.T) {
	r := testRand(t)
	w := newWorld(t)
	var paths []string
	for i := range 200 {
		paths = append(paths, fmt.Sprintf("big/f%03d.go", i), fmt.Sprintf("big/sub%02d/x%03d.go", i%40, i))
	}
	queries := []gate.Scope{sparse("big/*"), sparse("big/**"), sparse("big/sub0?/*"), sparse("**/x00?.go"), fullScope()}
	for _, p := range paths[:60] {
		queries = append(queries, fileScope(p))
	}
	check := func(stage string) {
		t.Helper()
		for _, q := range queries {
			var want []gate.LeaseID
			for _, l := range w.table.Active() {
				if scopesOverlap(l.Scope, q) {
					want = append(want, l.ID)
				}
			}
			if got := leaseIDs(w.table.Overlapping(q)); !slices.Equal(got, want) {
				t.Fatalf("%s: Overlapping(%v) = %v, want %v", stage, q, got, want)
			}
		}
	}
	var held []gate.Lease
	for _, p := range paths {
		held = append(held, w.grant(write("alice", p), t0))
	}
	for i := range 100 { // a check-out over alice's own auto lease leases the path twice
		held = append(held, w.grant(checkout("alice", fileScope(paths[2*i])), t0))
	}
	check("granted")
	for k, i := range r.Perm(len(held)) {
		w.grant(on(gate.OpRelease, "alice", held[i]), t0)
		if k%50 == 0 || k >= len(held)-20 {
			check(fmt.Sprintf("%d released", k+1))
		}
	}
}

// checkActive compares Active, which lists active leases only, with a
// scan of every lease the table remembers.
func checkActive(tb testing.TB, table *gate.Table) {
	tb.Helper()
	var want []gate.LeaseID
	for _, l := range table.All() {
		if l.State == gate.StateActive {
			want = append(want, l.ID)
		}
	}
	if got := leaseIDs(table.Active()); !slices.Equal(got, want) || len(got) != table.ActiveCount() {
		tb.Fatalf("Active() = %d leases, want the %d of a scan (ActiveCount %d)", len(got), len(want), table.ActiveCount())
	}
}

func leaseIDs(ls []gate.Lease) []gate.LeaseID {
	var ids []gate.LeaseID
	for _, l := range ls {
		ids = append(ids, l.ID)
	}
	return ids
}

func countTrue(m map[int]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// TestTableExpiring checks that Expiring is Active restricted to the leases
// with an expiry, live or past it.
func TestTablePruneExcessKeepsTheLastEnded(t *testing.T) {
	w := newWorld(t)
	var ids []gate.LeaseID
	for i := range 10 {
		ids = append(ids, w.grant(write("alice", fmt.Sprint("f", i)), t0).ID)
	}
	order := []int{7, 2, 9, 0, 4, 1, 8, 3} // 5 and 6 stay active
	for k, i := range order {
		// Ended later, but with an earlier TerminatedAt than the one before:
		// the order endings were applied in decides, not the times.
		w.mustApply(gate.Event{Type: gate.EventReleased, At: t0.Add(time.Duration(100-k) * time.Second), Actor: "alice", LeaseID: ids[i]})
	}
	if got := w.table.PruneExcess(3); got != 5 || w.table.Ended() != 3 {
		t.Fatalf("PruneExcess(3) = %d leaving %d ended, want 5 leaving 3", got, w.table.Ended())
	}
	for k, i := range order {
		if _, ok := w.table.Lease(ids[i]); ok != (k >= len(order)-3) {
			t.Errorf("lease f%d (ended %d of %d) remembered = %v", i, k+1, len(order), ok)
		}
	}
	checkActive(t, w.table)
	if w.table.ActiveCount() != 2 || w.table.PruneExcess(0) != 3 || w.table.PruneExcess(0) != 0 {
		t.Fatalf("after PruneExcess(0): %d active, %d ended; want 2 and 0", w.table.ActiveCount(), w.table.Ended())
	}
}

func TestTableHolderNames(t *testing.T) {
	w := newWorld(t)
	w.grant(write("zed", "a"), t0)
	w.grant(write("amy", "b"), t0)
	w.grant(write("amy", "c"), t0)
	w.grant(checkout("bob", fileScope("d")), t0)
	ended := w.grant(write("cy", "e"), t0)
	w.grant(on(gate.OpRelease, "cy", ended), t0)
	if got, want := w.table.HolderNames(gate.KindAuto), []string{"amy", "zed"}; !slices.Equal(got, want) {
		t.Fatalf("HolderNames(auto) = %v, want %v", got, want)
	}
	if got, want := w.table.HolderNames(gate.KindCheckout), []string{"bob"}; !slices.Equal(got, want) {
		t.Fatalf("HolderNames(checkout) = %v, want %v", got, want)
	}
}

func TestTableExpiring(t *testing.T) {
	w := newWorld(t)
	co := w.grant(checkout("alice", sparse("docs/**")), t0)
	w.grant(write("alice", "src/a.go"), t0)
	short := checkout("bob", fileScope("src/b.go"))
	short.TTL = time.Minute
	w.grant(short, t0)
	ended := w.grant(checkout("carol", fileScope("src/c.go")), t0)
	w.grant(on(gate.OpRelease, "carol", ended), t0)
	w.grant(write("dave", "src/d.go"), t0.Add(time.Hour)) // bob's lease has expired by now
	var want []gate.LeaseID
	for _, l := range w.table.Active() {
		if !l.ExpiresAt.IsZero() {
			want = append(want, l.ID)
		}
	}
	got := w.table.Expiring()
	if !slices.Equal(leaseIDs(got), want) || len(want) != 2 || got[0].ID != co.ID {
		t.Fatalf("Expiring() = %v, want %v", leaseIDs(got), want)
	}
	if !reflect.DeepEqual(got[0], co) {
		t.Errorf("Expiring()[0] = %+v, want %+v", got[0], co)
	}
}
