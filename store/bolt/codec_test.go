package bolt

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
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
		{gate.Event{}, "seq type at actor lease_id lease expires_at reason path data"},
	}
	for _, tt := range tests {
		typ := reflect.TypeOf(tt.v)
		var got []string
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			got = append(got, name)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s JSON fields = %q, the encoder knows %q", typ, strings.Join(got, " "), tt.want)
		}
	}
}

// eventGen makes random events, with the odd cases the encoder must hand
// to encoding/json mixed in.
type eventGen struct{ r *rand.Rand }

var (
	plainStrings = []string{"", "w3", "src/foo.go", "docs/**", "a b", "ünïcödé/ファイル", "~del\x7f"}
	oddStrings   = []string{"<html>", "a&b", `quo"te`, `back\slash`, "tab\there", "line\u2028sep", "bad\xffutf8", "ctl\x01"}
	eventTypes   = []gate.EventType{gate.EventGranted, gate.EventReleased, gate.EventRenewed, gate.EventNotice}
)

func (g eventGen) str() string {
	if g.r.IntN(50) == 0 {
		return oddStrings[g.r.IntN(len(oddStrings))]
	}
	return plainStrings[g.r.IntN(len(plainStrings))]
}

func (g eventGen) time() time.Time {
	switch g.r.IntN(40) {
	case 0:
		return time.Time{}
	case 1:
		return time.Date(2026, 11, 23, 1, 2, 3, 0, time.FixedZone("x", 5*3600+30*60))
	case 2:
		return time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // encoding/json refuses it
	case 3:
		return time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("odd", 17)) // seconds in the zone
	case 4:
		return time.Now() // a monotonic reading, which JSON drops
	}
	return time.Unix(g.r.Int64N(4e9), g.r.Int64N(1e9)).UTC()
}

func (g eventGen) lease() *gate.Lease {
	l := &gate.Lease{ID: gate.LeaseID(g.str()), Owner: gate.Owner{Name: g.str()}, Kind: gate.Kind(g.str()),
		Scope: gate.Scope{Type: gate.ScopeType(g.str())}, State: gate.State(g.str()), FencingToken: g.r.Uint64(),
		AcquiredAt: g.time(), LastHeartbeatAt: g.time(), ExpiresAt: g.time(), TerminatedAt: g.time()}
	if g.r.IntN(2) == 0 {
		l.Owner.Host, l.Owner.PID, l.Owner.StartTime = g.str(), g.r.IntN(1<<22)-10, g.r.Int64()
		l.RenewalCount, l.ReminderSent, l.ReleaseReason, l.EndedBy = g.r.Uint32(), true, g.str(), g.str()
	}
	for range g.r.IntN(3) {
		l.Scope.Paths = append(l.Scope.Paths, g.str())
	}
	return l
}

func (g eventGen) event() gate.Event {
	e := gate.Event{Seq: g.r.Uint64(), Type: eventTypes[g.r.IntN(len(eventTypes))], At: g.time(),
		Actor: g.str(), LeaseID: gate.LeaseID(g.str()), Reason: g.str(), Path: g.str()}
	if g.r.IntN(8) == 0 {
		e.Type = gate.EventType(g.str())
	}
	if g.r.IntN(2) == 0 {
		e.Lease = g.lease()
	}
	if g.r.IntN(3) == 0 {
		e.ExpiresAt = g.time()
	}
	switch g.r.IntN(10) {
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
	g := eventGen{rand.New(rand.NewPCG(7, 8))}
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

// TestEventRoundTrips: what the encoder writes decodes to the event, as
// far as JSON carries it (encoding/json's own round trip: invalid UTF-8
// becomes U+FFFD, times lose their monotonic reading).
func TestEventRoundTrips(t *testing.T) {
	g := eventGen{rand.New(rand.NewPCG(9, 10))}
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
