package jsonenc_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/jsonenc"
	"github.com/leasegate/leasegate/internal/jsonenc/jsontest"
)

// TestLeaseLikeEncodingJSON: a lease is written byte for byte as
// encoding/json writes it, or refused with ErrSlowPath when only
// encoding/json can write it.
func TestLeaseLikeEncodingJSON(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 30, 1, 123456789, time.UTC)
	full := gate.Lease{
		ID: "01JBENCH000000000000000001", Owner: gate.Owner{Name: "alice", Host: "vm", PID: 42, StartTime: 1700000000000},
		Kind: gate.KindCheckout, Scope: gate.Scope{Type: gate.ScopeSparse, Paths: []string{"docs/**", "src/é.go"},
			Files: []gate.File{{Path: "src/é.go", Dev: 2049, Ino: 1<<63 + 5}, {Path: "docs/x", Ino: 1}}},
		State: gate.StateReleased, FencingToken: 7, AcquiredAt: at, LastHeartbeatAt: at, ExpiresAt: at.Add(72 * time.Hour),
		RenewalCount: 2, ReminderSent: true, ReleaseReason: "done", EndedBy: "alice", TerminatedAt: at.Add(time.Hour),
	}
	minimal := gate.Lease{ID: "x", Owner: gate.Owner{Name: "bob"}, Kind: gate.KindAuto, Scope: gate.Scope{Type: gate.ScopeFull}, State: gate.StateActive}
	zoned := full
	zoned.AcquiredAt = at.In(time.FixedZone("X", 5*3600+30*60))
	for name, l := range map[string]gate.Lease{"full": full, "minimal": minimal, "zoned": zoned} {
		got, err := jsonenc.Lease(nil, &l)
		want, _ := json.Marshal(l)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: Lease() = %s, %v\nwant %s", name, got, err, want)
		}
	}
	slow := map[string]func(*gate.Lease){
		"escaped string":    func(l *gate.Lease) { l.Owner.Name = `a"b` },
		"html":              func(l *gate.Lease) { l.Scope.Paths = []string{"a<b>"} },
		"control byte":      func(l *gate.Lease) { l.ReleaseReason = "line\nbreak" },
		"invalid utf-8":     func(l *gate.Lease) { l.EndedBy = "\xff" },
		"line separator":    func(l *gate.Lease) { l.ID = "a\u2028b" },
		"escaped file path": func(l *gate.Lease) { l.Scope.Files = []gate.File{{Path: "a\tb", Ino: 1}} },
		"year 10000":        func(l *gate.Lease) { l.AcquiredAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) },
	}
	for name, edit := range slow {
		l := full
		l.Scope.Paths = append([]string(nil), full.Scope.Paths...)
		edit(&l)
		if _, err := jsonenc.Lease(nil, &l); !errors.Is(err, jsonenc.ErrSlowPath) {
			t.Errorf("%s: Lease() error = %v, want ErrSlowPath", name, err)
		}
	}
}

// TestKnowsEveryField fails when a type this package writes by hand gains
// or loses a JSON field: update jsonenc.go, then this list.
func TestKnowsEveryField(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{gate.Lease{}, "id owner kind scope state fencing_token acquired_at last_heartbeat_at expires_at renewal_count reminder_sent release_reason ended_by terminated_at new_dir"},
		{gate.Owner{}, "name host pid start_time"},
		{gate.Operator{}, "pid comm uid source"},
		{gate.Scope{}, "type paths files"},
		{gate.File{}, "path dev ino"},
	}
	for _, tt := range tests {
		if got := jsontest.FieldNames(tt.v); got != tt.want {
			t.Errorf("%T JSON fields = %q, jsonenc knows %q", tt.v, got, tt.want)
		}
	}
}
