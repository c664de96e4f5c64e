package bolt

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/jsonenc/jsontest"
)

// The hand-written event encoder must agree with encoding/json byte for
// byte, so the journal and the bbolt file hold what they always held.

// TestCodecKnowsEveryField (leases, owners and scopes: internal/jsonenc)
// fails when a type the encoder writes by hand
// gains or loses a JSON field: update codec.go, then this list.
func TestCodecKnowsEveryField(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{gate.Event{}, "seq type at actor lease_id lease expires_at reason path by data"}, // data: always encoding/json
	}
	for _, tt := range tests {
		if got := jsontest.FieldNames(tt.v); got != tt.want {
			t.Errorf("%T JSON fields = %q, the encoder knows %q", tt.v, got, tt.want)
		}
	}
}

// eventGen makes random events, with the odd cases the encoder must hand
// to encoding/json mixed in.
type eventGen struct{ jsontest.Gen }

var eventTypes = []gate.EventType{gate.EventGranted, gate.EventReleased, gate.EventRenewed, gate.EventNarrowed, gate.EventNotice}

func (g eventGen) event() gate.Event {
	e := gate.Event{Seq: g.R.Uint64(), Type: eventTypes[g.R.IntN(len(eventTypes))], At: g.Time(),
		Actor: g.Str(), LeaseID: gate.LeaseID(g.Str()), Reason: g.Str(), Path: g.Str()}
	if g.R.IntN(8) == 0 {
		e.Type = gate.EventType(g.Str())
	}
	if g.R.IntN(2) == 0 {
		l := g.Lease()
		e.Lease = &l
	}
	if g.R.IntN(3) == 0 {
		e.ExpiresAt = g.Time()
	}
	if g.R.IntN(4) == 0 { // the fast parser leaves these to encoding/json; the encoder writes them
		e.By = &gate.Operator{PID: g.R.IntN(1 << 22), Comm: g.Str(), UID: uint32(g.R.IntN(2000)), Source: g.Str()}
		if g.R.IntN(3) == 0 {
			e.By.PID, e.By.Comm = 0, ""
		}
	}
	switch g.R.IntN(10) {
	case 0:
		e.Data = json.RawMessage(`{"a": [1, "<b>"]}`)
	case 1:
		e.Data = json.RawMessage(`{"a"`) // encoding/json refuses it
	}
	return e
}

// TestEventEncodesLikeEncodingJSON: appendEventJSON writes what an
// encoding/json Encoder writes, or fails where it fails, leaving the
// buffer as it was.
func TestEventEncodesLikeEncodingJSON(t *testing.T) {
	g := eventGen{jsontest.New(7, 8)}
	for range 5000 {
		e := g.event()
		var want bytes.Buffer
		wantErr := json.NewEncoder(&want).Encode(&e)
		got, err := appendEventJSON([]byte("prefix"), &e)
		if wantErr != nil {
			want.Reset()
		}
		if (err != nil) != (wantErr != nil) || string(got) != "prefix"+want.String() {
			t.Fatalf("appendEventJSON(%#v)\n= %s, %v\nwant prefix%s, %v", e, got, err, want.Bytes(), wantErr)
		}
	}
}

// TestOperatorsActEncodedByHand: an operator's release, what a `leasegate
// release` records, is written without encoding/json.
func TestOperatorsActEncodedByHand(t *testing.T) {
	e := gate.Event{Seq: 9, Type: gate.EventReleased, At: time.Now().UTC(), Actor: "w1", LeaseID: "01JABCDEFGHJKMNPQRSTVWXYZ0",
		By: &gate.Operator{PID: 4242, Comm: "leasegate", UID: 1000, Source: "SO_PEERCRED"}}
	if _, err := appendEvent(nil, &e); err != nil {
		t.Errorf("appendEvent(an operator's release) = %v, want it written by hand", err)
	}
}

// TestEventRoundTrips: what the encoder writes decodes to the event, as
// far as JSON carries it (encoding/json's own round trip: invalid UTF-8
// becomes U+FFFD, times lose their monotonic reading).
func TestEventRoundTrips(t *testing.T) {
	g := eventGen{jsontest.New(9, 10)}
	for range 1000 {
		e := g.event().UTC()
		b, err := appendEventJSON(nil, &e)
		if err != nil {
			continue
		}
		got, err := decodeEvent(e.Seq, bytes.TrimSuffix(b, []byte{'\n'}))
		if err != nil {
			t.Fatalf("decodeEvent(%s): %v", b, err)
		}
		var want gate.Event
		if err := json.Unmarshal(mustMarshal(t, e), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeEvent(%s) = %+v, want %+v", b, got, want)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkEventEncode compares the hand-written encoder with the
// encoding/json Encoder it stands in for, on a grant event.
func BenchmarkEventEncode(b *testing.B) {
	now := time.Now().UTC()
	l := &gate.Lease{ID: "01JABCDEFGHJKMNPQRSTVWXYZ0", Owner: gate.Owner{Name: "w3", Host: "box", PID: 4242},
		Kind: gate.KindCheckout, Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{"w3/f123"}},
		State: gate.StateActive, FencingToken: 77, AcquiredAt: now, LastHeartbeatAt: now, ExpiresAt: now.Add(time.Hour)}
	e := gate.Event{Seq: 12345, Type: gate.EventGranted, At: now, Lease: l}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		for range b.N {
			buf.Reset()
			_ = json.NewEncoder(&buf).Encode(&e)
		}
	})
	b.Run("hand-written", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for range b.N {
			buf, _ = appendEventJSON(buf[:0], &e)
		}
	})
}
