package api

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// The hand-written codecs must agree with encoding/json byte for byte
// (encoding) and value for value, error for error (decoding).

// TestCodecKnowsEveryField fails when a type the codecs write or read by
// hand gains or loses a JSON field: update codec_encode.go and
// codec_decode.go, then this list.
func TestCodecKnowsEveryField(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{gate.Lease{}, "id owner kind scope state fencing_token acquired_at last_heartbeat_at expires_at renewal_count reminder_sent release_reason ended_by terminated_at"},
		{gate.Owner{}, "name host pid start_time"},
		{gate.Scope{}, "type paths"},
		{gate.Decision{}, "granted reason message holder conflicts lease covered remaining -"},
		{coordinator.LeaseResult{}, "decision leases"},
		{coordinator.Result{}, "outcome reason message leases holder contention blocker"},
		{coordinator.LeaseRequest{}, "op owner scope ttl lease_id token reason -"},
		{coordinator.MutateRequest{}, "owner op paths try"},
	}
	for _, tt := range tests {
		typ := reflect.TypeOf(tt.v)
		var got []string
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			got = append(got, name)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s JSON fields = %q, the codecs know %q", typ, strings.Join(got, " "), tt.want)
		}
	}
}

// gen makes random values of the hot-path types, with the odd cases the
// codecs must hand to encoding/json mixed in.
type gen struct{ r *rand.Rand }

var (
	plainStrings = []string{"", "w3", "src/foo.go", "docs/**", "a b", "ünïcödé/ファイル", "~del\x7f"}
	oddStrings   = []string{"<html>", "a&b", `quo"te`, `back\slash`, "tab\there", "line\u2028sep", "bad\xffutf8", "ctl\x01"}
)

// str is mostly a string the fast path writes, sometimes one it leaves to
// encoding/json.
func (g gen) str() string {
	if g.r.IntN(50) == 0 {
		return oddStrings[g.r.IntN(len(oddStrings))]
	}
	return plainStrings[g.r.IntN(len(plainStrings))]
}

func (g gen) time() time.Time {
	switch g.r.IntN(40) {
	case 0:
		return time.Time{}
	case 1:
		return time.Date(2026, 11, 23, 1, 2, 3, 0, time.FixedZone("x", 5*3600+30*60))
	case 2:
		return time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // encoding/json refuses it
	case 3:
		return time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("odd", 17)) // seconds in the zone
	}
	return time.Unix(g.r.Int64N(4e9), g.r.Int64N(1e9)).UTC()
}

func (g gen) lease() gate.Lease {
	l := gate.Lease{ID: gate.LeaseID(g.str()), Owner: gate.Owner{Name: g.str()}, Kind: gate.Kind(g.str()),
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

func (g gen) leases() []gate.Lease {
	var out []gate.Lease
	for range g.r.IntN(3) {
		out = append(out, g.lease())
	}
	return out
}

func (g gen) leasePtr() *gate.Lease {
	if g.r.IntN(2) == 0 {
		return nil
	}
	l := g.lease()
	return &l
}

func (g gen) leaseResult() coordinator.LeaseResult {
	return coordinator.LeaseResult{Leases: g.leases(), Decision: gate.Decision{Granted: g.r.IntN(2) == 0,
		Reason: gate.Reason(g.str()), Message: g.str(), Holder: g.leasePtr(), Conflicts: g.leases(),
		Lease: g.leasePtr(), Covered: g.leases(), Remaining: time.Duration(g.r.Int64N(1e12) - 1e11)}}
}

func (g gen) result() coordinator.Result {
	r := coordinator.Result{Outcome: coordinator.Outcome(g.str()), Reason: gate.Reason(g.str()), Message: g.str(),
		Leases: g.leases(), Holder: g.leasePtr()}
	if g.r.IntN(8) == 0 {
		r.Contention = &coordinator.ContentionView{ID: g.str(), Holder: g.lease(), RetryAt: g.time()}
	}
	return r
}

// TestCodecEncodesLikeEncodingJSON: marshalAnswer writes what json.Marshal
// writes, or fails where it fails.
func TestCodecEncodesLikeEncodingJSON(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(1, 2))}
	for i := range 1000 {
		var v any = g.leaseResult()
		if i%2 == 1 {
			v = g.result()
		}
		want, wantErr := json.Marshal(v)
		got, err := marshalAnswer(v)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("marshalAnswer(%#v)\n= %s, %v\nwant %s, %v", v, got, err, want, wantErr)
		}
	}
}

func (g gen) leaseRequest() coordinator.LeaseRequest {
	r := coordinator.LeaseRequest{Op: gate.Op(g.str()), Owner: g.lease().Owner, LeaseID: gate.LeaseID(g.str()),
		Reason: g.str(), Admin: g.str()}
	switch g.r.IntN(4) {
	case 0:
		r.Scope = g.lease().Scope
	case 1:
		r.Scope.Paths = []string{} // not zero: written as a scope
	}
	if g.r.IntN(2) == 0 {
		r.TTL, r.Token = time.Duration(g.r.Int64N(1e12)-1e11), g.r.Uint64()
	}
	return r
}

func (g gen) mutateRequest() coordinator.MutateRequest {
	r := coordinator.MutateRequest{Owner: g.str(), Op: g.str(), Try: g.r.IntN(2) == 0}
	switch g.r.IntN(3) {
	case 0:
		r.Paths = []string{}
	case 1:
		r.Paths = []string{g.str(), g.str()}
	}
	return r
}

// TestCodecEncodesRequestsLikeEncodingJSON: marshalRequest writes what
// json.Marshal writes, or fails where it fails.
func TestCodecEncodesRequestsLikeEncodingJSON(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(11, 12))}
	for i := range 2000 {
		var v any = g.leaseRequest()
		if i%2 == 1 {
			v = g.mutateRequest()
		}
		want, wantErr := json.Marshal(v)
		got, err := marshalRequest(v)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("marshalRequest(%#v)\n= %s, %v\nwant %s, %v", v, got, err, want, wantErr)
		}
	}
}

// TestCodecDecodesLikeEncodingJSON: the fast decoders give encoding/json's
// value for what the server writes, and for variations of it.
func TestCodecDecodesLikeEncodingJSON(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(3, 4))}
	for i := range 400 {
		var data []byte
		if i%2 == 0 {
			data, _ = json.Marshal(g.leaseResult())
		} else {
			data, _ = json.Marshal(g.result())
		}
		for _, in := range variations(data) {
			checkDecode(t, in)
		}
	}
}

// variations returns data and forms of it that leave the fast path.
func variations(data []byte) [][]byte {
	s := string(data)
	return [][]byte{
		data,
		[]byte(" \n" + strings.ReplaceAll(s, ",", " ,\t") + " \r\n"),
		[]byte(strings.Replace(s, `"reason"`, `"Reason"`, 1)),
		[]byte(strings.Replace(s, `"fencing_token":`, `"fencing_token":1.5,"x":`, 1)),
		[]byte(strings.Replace(s, `"id":`, `"id":null,"id":`, 1)),
		[]byte(strings.Replace(s, `"name":"`, `"name":"\u0041`, 1)),
		[]byte(strings.Replace(s, `"owner":{`, `"owner":{"pid":-0,`, 1)),
		[]byte(strings.Replace(s, `"owner":{`, `"owner":{"host":"h"},"owner":{`, 1)),
		[]byte(strings.Replace(s, `"granted":`, `"unknown":[1,{"a":2}],"granted":`, 1)),
		[]byte(s[:len(s)/2]),
		[]byte(s + "x"),
		[]byte(strings.Replace(s, `"acquired_at":"`, `"acquired_at":"x`, 1)),
		[]byte(strings.Replace(s, `"fencing_token":`, `"fencing_token":-`, 1)),
		[]byte(strings.Replace(s, `"fencing_token":`, `"fencing_token":018446744073709551616,"y":`, 1)),
	}
}

func checkDecode(t *testing.T, in []byte) {
	t.Helper()
	var fastLR, slowLR coordinator.LeaseResult
	errF, errS := decodeLeaseResult(in, &fastLR), json.Unmarshal(in, &slowLR)
	if (errF != nil) != (errS != nil) || !reflect.DeepEqual(fastLR, slowLR) {
		t.Fatalf("decodeLeaseResult(%s)\n= %+v, %v\nwant %+v, %v", in, fastLR, errF, slowLR, errS)
	}
	var fastR, slowR coordinator.Result
	errF, errS = decodeResult(in, &fastR), json.Unmarshal(in, &slowR)
	if (errF != nil) != (errS != nil) || !reflect.DeepEqual(fastR, slowR) {
		t.Fatalf("decodeResult(%s)\n= %+v, %v\nwant %+v, %v", in, fastR, errF, slowR, errS)
	}
}

// TestCodecDecodesRequestsStrictly: the fast request decoders accept and
// refuse what the strict encoding/json decoder does.
func TestCodecDecodesRequestsStrictly(t *testing.T) {
	tests := []string{
		`{"op":"acquire","owner":{"name":"w1","pid":42},"scope":{"type":"file","paths":["a","b"]},"ttl":3600000000000}`,
		`{"op":"release","owner":{"name":"w1"},"lease_id":"01J","token":18446744073709551615,"reason":"done"}`,
		`{"op":"release","token":18446744073709551616}`,
		`{"op":"release","token":-1}`,
		`{"op":"evict","admin":"root"}`,
		`{"OP":"acquire"}`,
		`{"op":"acquire"} {}`,
		`{"op":"acquire",}`,
		`{"op":null}`,
		`{"owner":"alice","op":"write","paths":["x.txt"],"try":true}`,
		`{"owner":"alice","op":"write","paths":null}`,
		`{"owner":"alice","paths":[],"force":true}`,
		`{"owner":"al\"ice","paths":["a"]}`,
		`{"owner":"alice","try":"yes"}`,
		``,
		`[]`,
	}
	for _, in := range tests {
		var fastL, slowL coordinator.LeaseRequest
		errF, errS := decodeLeaseRequest([]byte(in), &fastL), decodeJSON(strings.NewReader(in), &slowL)
		if !sameError(errF, errS) || !reflect.DeepEqual(fastL, slowL) {
			t.Errorf("decodeLeaseRequest(%s) = %+v, %v; want %+v, %v", in, fastL, errF, slowL, errS)
		}
		var fastM, slowM coordinator.MutateRequest
		errF, errS = decodeMutateRequest([]byte(in), &fastM), decodeJSON(strings.NewReader(in), &slowM)
		if !sameError(errF, errS) || !reflect.DeepEqual(fastM, slowM) {
			t.Errorf("decodeMutateRequest(%s) = %+v, %v; want %+v, %v", in, fastM, errF, slowM, errS)
		}
	}
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}

// FuzzLeaseResultDecode checks the fast decoder against encoding/json on
// arbitrary input (go test -fuzz FuzzLeaseResultDecode ./api/).
func FuzzLeaseResultDecode(f *testing.F) {
	g := gen{rand.New(rand.NewPCG(5, 6))}
	for range 20 {
		data, _ := json.Marshal(g.leaseResult())
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if slices.Contains(in, 0) {
			return
		}
		checkDecode(t, in)
	})
}
