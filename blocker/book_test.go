package blocker_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// reportAt returns the fixture report with another id, first denied at.
func reportAt(id string, at time.Time) blocker.Report {
	in := input()
	in.ID = id
	in.FirstDeniedAt = at
	return blocker.New(in)
}

func mustOpened(tb testing.TB, r blocker.Report) gate.Event {
	tb.Helper()
	e, err := blocker.OpenedEvent(r, r.RetriedAt)
	if err != nil {
		tb.Fatalf("OpenedEvent(%s) = %v", r.ID, err)
	}
	return e
}

func mustResolved(tb testing.TB, id string, a blocker.Action, at time.Time) gate.Event {
	tb.Helper()
	e, err := blocker.ResolvedEvent(id, a, "carol", at, "note on "+id)
	if err != nil {
		tb.Fatalf("ResolvedEvent(%s, %s) = %v", id, a, err)
	}
	return e
}

func mustBook(tb testing.TB, events []gate.Event) *blocker.Book {
	tb.Helper()
	b := blocker.NewBook()
	for _, e := range events {
		if err := b.Apply(e); err != nil {
			tb.Fatalf("Apply(%s) = %v", e.Type, err)
		}
	}
	return b
}

func ids(rs []blocker.Report) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

// history is a ledger's worth of events: three blockers, two resolved,
// with lease events in between.
func history(tb testing.TB) []gate.Event {
	t0 := firstDenied
	return []gate.Event{
		{Type: gate.EventGranted, At: t0, Lease: &gate.Lease{ID: "L1"}},
		mustOpened(tb, reportAt("B", t0.Add(time.Minute))),
		mustOpened(tb, reportAt("C", t0)),
		{Type: gate.EventContention, At: t0, Path: "src/foo.go"},
		mustOpened(tb, reportAt("A", t0.Add(time.Minute))),
		mustResolved(tb, "C", blocker.ActionDeny, t0.Add(time.Hour)),
		mustResolved(tb, "B", blocker.ActionRetry, t0.Add(2*time.Hour)),
		{Type: gate.EventReleased, At: t0, LeaseID: "L1"},
	}
}

func TestBookReplay(t *testing.T) {
	events := history(t)
	b := mustBook(t, events)

	if got, want := ids(b.All()), []string{"C", "A", "B"}; !slices.Equal(got, want) {
		t.Errorf("All() = %q, want %q (by first denial, then id)", got, want)
	}
	if got, want := ids(b.Open()), []string{"A"}; !slices.Equal(got, want) {
		t.Errorf("Open() = %q, want %q", got, want)
	}
	for id, want := range map[string]blocker.Status{"A": blocker.StatusOpen, "B": blocker.StatusRetried, "C": blocker.StatusDenied} {
		if r, ok := b.Get(id); !ok || r.Status != want {
			t.Errorf("Get(%s) = %s, %v; want %s, true", id, r.Status, ok, want)
		}
	}

	// Replay the events as a store gives them back: through JSON.
	var stored []gate.Event
	for i, e := range events {
		e.Seq = uint64(i + 1)
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("Marshal(event %d) = %v", i, err)
		}
		var back gate.Event
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("Unmarshal(event %d) = %v", i, err)
		}
		stored = append(stored, back)
	}
	if again := mustBook(t, stored); !reflect.DeepEqual(again.All(), b.All()) {
		t.Errorf("replayed book =\n%+v\nwant\n%+v", again.All(), b.All())
	}
}

func TestBookApplyRefuses(t *testing.T) {
	resolved := report()
	_ = resolved.Resolve(blocker.ActionDeny, "carol", retried, "")
	tests := []struct {
		name  string
		event gate.Event
		want  error
	}{
		{name: "opened twice", event: mustOpened(t, reportAt("A", firstDenied)), want: blocker.ErrExists},
		{name: "resolve unknown id", event: mustResolved(t, "Z", blocker.ActionDeny, retried), want: blocker.ErrNotFound},
		{name: "resolve a resolved report", event: mustResolved(t, "C", blocker.ActionAbort, retried), want: blocker.ErrNotOpen},
		{name: "retry unknown id", event: mustRetried(t, "Z"), want: blocker.ErrNotFound},
		{name: "retry a resolved report", event: mustRetried(t, "C"), want: blocker.ErrNotOpen},
		{name: "malformed report", event: gate.Event{Type: gate.EventBlockerOpened, Data: json.RawMessage(`{"id": 7}`)}, want: blocker.ErrInvalidEvent},
		{name: "report without id", event: gate.Event{Type: gate.EventBlockerOpened, Data: json.RawMessage(`{"status": "open"}`)}, want: blocker.ErrInvalidEvent},
		{name: "report opened resolved", event: gate.Event{Type: gate.EventBlockerOpened, Data: mustJSON(t, resolved)}, want: blocker.ErrInvalidEvent},
		{name: "malformed resolution", event: gate.Event{Type: gate.EventBlockerResolved, Data: json.RawMessage(`[]`)}, want: blocker.ErrInvalidEvent},
		{name: "unknown action", event: gate.Event{Type: gate.EventBlockerResolved,
			Data: mustJSON(t, blocker.Resolved{ID: "A", Action: "skip"})}, want: blocker.ErrUnknownAction},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustBook(t, history(t))
			before := b.All()
			if err := b.Apply(tt.event); !errors.Is(err, tt.want) {
				t.Fatalf("Apply(%s) = %v, want %v", tt.name, err, tt.want)
			}
			if !reflect.DeepEqual(b.All(), before) {
				t.Errorf("Apply(%s) failed but changed the book", tt.name)
			}
		})
	}
}

func mustRetried(tb testing.TB, id string) gate.Event {
	tb.Helper()
	e, err := blocker.RetriedEvent(id, "carol", retried, "")
	if err != nil {
		tb.Fatalf("RetriedEvent(%s) = %v", id, err)
	}
	return e
}

// TestBookRetriedKeepsReportOpen: an operator's retry that found the file
// still held is taken by an open report and changes nothing in it.
func TestBookRetriedKeepsReportOpen(t *testing.T) {
	b := mustBook(t, history(t))
	before := b.All()
	if err := b.Apply(mustRetried(t, "A")); err != nil {
		t.Fatalf("Apply(blocker.retried of open A) = %v", err)
	}
	if !reflect.DeepEqual(b.All(), before) {
		t.Errorf("a retry changed the book: %+v, want %+v", b.All(), before)
	}
}

func mustJSON(tb testing.TB, v any) json.RawMessage {
	tb.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("Marshal(%T) = %v", v, err)
	}
	return data
}

func TestBookGetReturnsACopy(t *testing.T) {
	b := mustBook(t, history(t))
	r, _ := b.Get("C")
	r.Paths[0] = "changed"
	r.HolderNow.Evidence = "changed"
	r.Holder.Liveness.Evidence[0] = "changed"
	r.Resolution.Note = "changed"
	r.Status = blocker.StatusOpen
	if again, _ := b.Get("C"); !reflect.DeepEqual(again, mustBook(t, history(t)).All()[0]) {
		t.Errorf("changing a report from Get changed the book: %+v", again)
	}
	if _, ok := b.Get("missing"); ok {
		t.Errorf("Get(missing) found a report")
	}
}

func TestOpenedEvent(t *testing.T) {
	r := report()
	at := retried.In(time.FixedZone("CET", 3600))
	e, err := blocker.OpenedEvent(r, at)
	if err != nil {
		t.Fatalf("OpenedEvent = %v", err)
	}
	if e.Type != gate.EventBlockerOpened || e.Path != "src/foo.go" || e.LeaseID != r.Holder.LeaseID ||
		e.Actor != "alice" || e.At.Location() != time.UTC || !e.At.Equal(at) {
		t.Errorf("OpenedEvent = %+v, want blocker.opened by alice on src/foo.go and lease %s at %v UTC", e, r.Holder.LeaseID, at)
	}
	if !e.Touches(r.Holder.LeaseID, "") || !e.Touches(gate.NoLease, "src/foo.go") {
		t.Errorf("OpenedEvent does not show in the history of its lease and path")
	}

	_ = r.Resolve(blocker.ActionDeny, "carol", retried, "")
	if _, err := blocker.OpenedEvent(r, at); !errors.Is(err, blocker.ErrInvalidEvent) {
		t.Errorf("OpenedEvent(resolved report) = %v, want %v", err, blocker.ErrInvalidEvent)
	}
}

func TestResolvedEvent(t *testing.T) {
	e := mustResolved(t, "A", blocker.ActionAbort, retried)
	var res blocker.Resolved
	if err := json.Unmarshal(e.Data, &res); err != nil {
		t.Fatalf("Unmarshal(ResolvedEvent.Data) = %v", err)
	}
	want := blocker.Resolved{ID: "A", Action: blocker.ActionAbort, By: "carol", At: retried, Note: "note on A"}
	if e.Type != gate.EventBlockerResolved || e.Actor != "carol" || !reflect.DeepEqual(res, want) {
		t.Errorf("ResolvedEvent = %+v with data %+v, want blocker.resolved by carol with %+v", e, res, want)
	}
	if _, err := blocker.ResolvedEvent("A", "skip", "carol", retried, ""); !errors.Is(err, blocker.ErrUnknownAction) {
		t.Errorf("ResolvedEvent(skip) = %v, want %v", err, blocker.ErrUnknownAction)
	}
	if _, err := blocker.ResolvedEvent("", blocker.ActionDeny, "carol", retried, ""); !errors.Is(err, blocker.ErrInvalidEvent) {
		t.Errorf("ResolvedEvent(no id) = %v, want %v", err, blocker.ErrInvalidEvent)
	}
}

// TestBookClone: a clone keeps the reports as they were when it was
// taken, whatever the original applies next.
func TestBookClone(t *testing.T) {
	evs := history(t)
	b := mustBook(t, evs[:5])
	c := b.Clone()
	want := mustBook(t, evs[:5]).All()
	for _, e := range evs[5:] {
		if err := b.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.All(); !reflect.DeepEqual(got, want) {
		t.Fatalf("clone after the original resolved two reports = %+v, want them open as when cloned", got)
	}
	if err := c.Apply(evs[5]); err != nil {
		t.Fatalf("clone.Apply(the resolution the original took) = %v", err)
	}
}
