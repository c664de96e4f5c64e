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
	"github.com/leasegate/leasegate/internal/jsonenc/jsontest"
)

// The hand-written event decoder must read what encoding/json reads, or
// leave the value to it.

// checkParse fails unless parseEvent(v) gives up or agrees with
// encoding/json, and returns whether it read v.
func checkParse(t *testing.T, v []byte) bool {
	t.Helper()
	got, ok := parseEvent(v)
	if !ok {
		return false
	}
	var want gate.Event
	if err := json.Unmarshal(v, &want); err != nil {
		t.Fatalf("parseEvent(%q) read what encoding/json refuses: %v", v, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseEvent(%q)\n= %+v\nwant %+v", v, got, want)
	}
	if got.Lease != nil && !reflect.DeepEqual(*got.Lease, *want.Lease) {
		t.Fatalf("parseEvent(%q) lease\n= %+v\nwant %+v", v, *got.Lease, *want.Lease)
	}
	return true
}

// encodings are what the encoder writes for random events, the ones it
// leaves to encoding/json included, and whether each took the fast path.
func encodings(n int) (vs [][]byte, fast []bool) {
	g := eventGen{jsontest.New(11, 12)}
	for range n {
		e := g.event()
		if g.R.IntN(4) == 0 {
			e.Data = json.RawMessage(`{"pid":4242,"evidence":["gone"],"n":[1,{"x":null}]}`)
		}
		_, err := appendEvent(nil, &e)
		v, werr := appendEventJSON(nil, &e)
		if werr != nil {
			continue
		}
		vs = append(vs, v)
		fast = append(fast, err == nil)
	}
	return vs, fast
}

// TestParseEventReadsWhatTheEncoderWrites: every event the encoder writes
// on its fast path, and every one with data, is read without encoding/json
// and read as encoding/json reads it; what the encoder left to
// encoding/json (escaped strings) is read the same or left to it.
func TestParseEventReadsWhatTheEncoderWrites(t *testing.T) {
	vs, fast := encodings(5000)
	read := 0
	for i, v := range vs {
		ok := checkParse(t, v)
		if fast[i] && !ok {
			t.Fatalf("parseEvent(%s) gave up on what the fast encoder wrote", v)
		}
		if ok {
			read++
		}
	}
	if read < len(vs)*3/4 {
		t.Fatalf("parseEvent read %d of %d encodings, want most", read, len(vs))
	}
}

// TestParseEventDamaged: a byte changed, dropped, added or cut off never
// makes the parser read something encoding/json reads differently or
// refuses.
func TestParseEventDamaged(t *testing.T) {
	vs, _ := encodings(500)
	r := rand.New(rand.NewPCG(13, 14))
	alphabet := []byte(`{}[]",:-0123456789.eE \ntruefalsnul\\aZ` + "\x00\xff\xc3")
	for _, v := range vs {
		for range 40 {
			d := bytes.Clone(v)
			at := r.IntN(len(d))
			switch r.IntN(4) {
			case 0:
				d[at] = alphabet[r.IntN(len(alphabet))]
			case 1:
				d = append(d[:at], d[at+1:]...)
			case 2:
				d = append(d[:at], append([]byte{alphabet[r.IntN(len(alphabet))]}, d[at:]...)...)
			default:
				d = d[:at]
			}
			checkParse(t, d)
		}
	}
}

// TestParseEventEdges: the spots where a loose reader would differ from
// encoding/json.
func TestParseEventEdges(t *testing.T) {
	const lease = `{"id":"L","owner":{"name":"a"%s},"kind":"auto","scope":{"type":"file"%s},"state":"active","fencing_token":%s,"acquired_at":"2026-01-02T03:04:05Z","last_heartbeat_at":"2026-01-02T03:04:05Z"%s}`
	tests := []struct {
		name string
		v    string
		read bool
	}{
		{"plain", `{"seq":1,"type":"lease.released","at":"2026-01-02T03:04:05.123Z","lease_id":"L"}`, true},
		{"trailing newline", "{\"seq\":1,\"type\":\"x\",\"at\":\"2026-01-02T03:04:05Z\"}\n", true},
		{"zone offset", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05+05:30"}`, true},
		{"leading zero", `{"seq":01,"type":"x","at":"2026-01-02T03:04:05Z"}`, false},
		{"fraction", `{"seq":1.0,"type":"x","at":"2026-01-02T03:04:05Z"}`, false},
		{"exponent", `{"seq":1e3,"type":"x","at":"2026-01-02T03:04:05Z"}`, false},
		{"negative seq", `{"seq":-1,"type":"x","at":"2026-01-02T03:04:05Z"}`, false},
		{"seq overflow", `{"seq":18446744073709551616,"type":"x","at":"2026-01-02T03:04:05Z"}`, false},
		{"seq max", `{"seq":18446744073709551615,"type":"x","at":"2026-01-02T03:04:05Z"}`, true},
		{"escape", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z","actor":"a\"b"}`, false},
		{"unicode escape", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z","actor":"\u0041"}`, false},
		{"invalid utf-8", "{\"seq\":1,\"type\":\"x\",\"at\":\"2026-01-02T03:04:05Z\",\"actor\":\"a\xffb\"}", false},
		{"raw control", "{\"seq\":1,\"type\":\"x\",\"at\":\"2026-01-02T03:04:05Z\",\"actor\":\"a\tb\"}", false},
		{"bad time", `{"seq":1,"type":"x","at":"2026-13-02T03:04:05Z"}`, false},
		{"unknown field", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z","extra":1}`, false},
		{"other case", `{"Seq":1,"type":"x","at":"2026-01-02T03:04:05Z"}`, false},
		{"space inside", `{"seq": 1,"type":"x","at":"2026-01-02T03:04:05Z"}`, false},
		{"data", `{"seq":1,"type":"notice","at":"2026-01-02T03:04:05Z","data":{"a":[1,"<b>"]}}`, true},
		{"data then field", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z","data":{},"path":"p"}`, false},
		{"data space", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z","data": {}}`, false},
		{"data broken", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z","data":{"a"}`, false},
		{"two values", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z"}{}`, false},
		{"lease", `{"seq":1,"type":"lease.granted","at":"2026-01-02T03:04:05Z","lease":` + sprintf(lease, `,"host":"h","pid":-42,"start_time":-9223372036854775808`, `,"paths":["a","b"]`, "7", `,"expires_at":"2026-01-05T03:04:05Z","renewal_count":4294967295,"reminder_sent":true`) + `}`, true},
		{"reminder false", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z","lease":` + sprintf(lease, "", "", "7", `,"reminder_sent":false`) + `}`, true},
		{"renewals overflow", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z","lease":` + sprintf(lease, "", "", "7", `,"renewal_count":4294967296`) + `}`, false},
		{"pid overflow", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z","lease":` + sprintf(lease, `,"pid":9223372036854775808`, "", "7", "") + `}`, false},
		{"empty paths", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z","lease":` + sprintf(lease, "", `,"paths":[]`, "7", "") + `}`, false},
		{"null lease", `{"seq":1,"type":"x","at":"2026-01-02T03:04:05Z","lease":null}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkParse(t, []byte(tt.v)); got != tt.read {
				t.Fatalf("parseEvent(%s) read = %v, want %v", tt.v, got, tt.read)
			}
		})
	}
}

// sprintf puts args in the %s of format in turn.
func sprintf(format string, args ...string) string {
	for _, a := range args {
		format = strings.Replace(format, "%s", a, 1)
	}
	return format
}

// FuzzParseEvent holds the parser to encoding/json on any input.
func FuzzParseEvent(f *testing.F) {
	vs, _ := encodings(50)
	for _, v := range vs {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v []byte) { checkParse(t, v) })
}

// BenchmarkEventDecode compares the hand-written decoder with
// encoding/json on a grant event as the ledger stores it.
func BenchmarkEventDecode(b *testing.B) {
	now := time.Now().UTC()
	l := &gate.Lease{ID: "01JABCDEFGHJKMNPQRSTVWXYZ0", Owner: gate.Owner{Name: "w3", Host: "box", PID: 4242},
		Kind: gate.KindCheckout, Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{"w3/f123"}},
		State: gate.StateActive, FencingToken: 77, AcquiredAt: now, LastHeartbeatAt: now, ExpiresAt: now.Add(time.Hour)}
	v, err := appendEventJSON(nil, &gate.Event{Seq: 12345, Type: gate.EventGranted, At: now, Lease: l})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var e gate.Event
			if err := json.Unmarshal(v, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hand-written", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, ok := parseEvent(v); !ok {
				b.Fatal("parseEvent gave up")
			}
		}
	})
}
