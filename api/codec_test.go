package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/jsonenc/jsontest"
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
		{gate.Lease{}, "id owner kind scope state fencing_token acquired_at last_heartbeat_at expires_at renewal_count reminder_sent release_reason ended_by terminated_at new_dir"},
		{gate.Owner{}, "name host pid start_time"},
		{gate.Scope{}, "type paths files"},
		{gate.File{}, "path dev ino"},
		{gate.Decision{}, "granted reason message holder conflicts lease covered remaining_ns -"},
		{leasegate.LeaseResult{}, "decision leases"},
		{leasegate.Result{}, "outcome reason message leases holder contention blocker"},
		{leasegate.LeaseRequest{}, "op owner scope ttl lease_id token reason -"},
		{leasegate.MutateRequest{}, "owner op paths files try retry_after holds_git_lock"},
	}
	for _, tt := range tests {
		if got := jsontest.FieldNames(tt.v); got != tt.want {
			t.Errorf("%T JSON fields = %q, the codecs know %q", tt.v, got, tt.want)
		}
	}
}

// gen makes random values of the hot-path types, with the odd cases the
// codecs must hand to encoding/json mixed in.
type gen struct{ jsontest.Gen }

func (g gen) leases() []gate.Lease {
	var out []gate.Lease
	for range g.R.IntN(3) {
		out = append(out, g.Lease())
	}
	return out
}

func (g gen) leasePtr() *gate.Lease {
	if g.R.IntN(2) == 0 {
		return nil
	}
	l := g.Lease()
	return &l
}

func (g gen) leaseResult() leasegate.LeaseResult {
	return leasegate.LeaseResult{Leases: g.leases(), Decision: gate.Decision{Granted: g.R.IntN(2) == 0,
		Reason: gate.Reason(g.Str()), Message: g.Str(), Holder: g.leasePtr(), Conflicts: g.leases(),
		Lease: g.leasePtr(), Covered: g.leases(), Remaining: time.Duration(g.R.Int64N(1e12) - 1e11)}}
}

func (g gen) result() leasegate.Result {
	r := leasegate.Result{Outcome: leasegate.Outcome(g.Str()), Reason: gate.Reason(g.Str()), Message: g.Str(),
		Leases: g.leases(), Holder: g.leasePtr()}
	if g.R.IntN(8) == 0 {
		r.Contention = &leasegate.ContentionView{ID: g.Str(), Holder: g.Lease(), RetryAt: g.Time()}
	}
	return r
}

// TestCodecEncodesLikeEncodingJSON: marshalAnswer writes what json.Marshal
// writes, or fails where it fails.
func TestCodecEncodesLikeEncodingJSON(t *testing.T) {
	g := gen{jsontest.New(1, 2)}
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

// TestCodecEncodesStatusLikeEncodingJSON: a status, its leases written by
// hand, is what json.Marshal writes, whatever its owners' names hold.
func TestCodecEncodesStatusLikeEncodingJSON(t *testing.T) {
	g := gen{jsontest.New(3, 4)}
	for i := range 300 {
		s := leasegate.Status{Now: time.Unix(g.R.Int64N(1e10), 0).UTC(), LastSeq: g.R.Uint64(), Leases: g.leases(),
			Owners: []leasegate.OwnerView{{Owner: g.Lease().Owner}}, Ungated: []leasegate.UngatedWrite{{Path: `"leases":null`}},
			LedgerWarning: g.Str()}
		if i%10 == 0 {
			s.Leases = nil
		}
		want, wantErr := json.Marshal(s)
		got, err := marshalAnswer(s)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("marshalAnswer(%#v)\n= %s, %v\nwant %s, %v", s, got, err, want, wantErr)
		}
	}
}

// TestStatusSentInPieces: over HTTP a status of many leases is sent a
// piece at a time, and what arrives is what json.Marshal writes.
func TestStatusSentInPieces(t *testing.T) {
	g := gen{jsontest.New(5, 6)}
	s := leasegate.Status{Now: time.Unix(1e9, 0).UTC(), Owners: []leasegate.OwnerView{{Owner: g.Lease().Owner}}, Blockers: []blocker.Report{}}
	for len(s.Leases) < 3000 {
		if l := g.Lease(); encodes(l) {
			s.Leases = append(s.Leases, l) // one that encodes: a time within years 0 to 9999
		}
	}
	w := &countingWriter{ResponseRecorder: httptest.NewRecorder()}
	writeJSON(w, http.StatusOK, s)
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Body.Bytes(); !bytes.Equal(got, append(want, '\n')) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("status over HTTP differs from json.Marshal's at byte %d: %.80q, want %.80q", i, got[max(0, i-40):], want[max(0, i-40):])
	}
	if min := len(want) / statusPiece; w.writes < min {
		t.Errorf("status of %d bytes sent in %d writes, want at least %d", len(want), w.writes, min)
	}
}

func encodes(l gate.Lease) bool {
	_, err := json.Marshal(l)
	return err == nil
}

type countingWriter struct {
	*httptest.ResponseRecorder
	writes int
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.writes++
	return w.ResponseRecorder.Write(b)
}

func (g gen) leaseRequest() leasegate.LeaseRequest {
	r := leasegate.LeaseRequest{Op: gate.Op(g.Str()), Owner: g.Lease().Owner, LeaseID: gate.LeaseID(g.Str()),
		Reason: g.Str(), Admin: g.Str()}
	switch g.R.IntN(4) {
	case 0:
		r.Scope = g.Lease().Scope
	case 1:
		r.Scope.Paths = []string{} // not zero: written as a scope
	}
	if g.R.IntN(2) == 0 {
		r.TTL, r.Token = time.Duration(g.R.Int64N(1e12)-1e11), g.R.Uint64()
	}
	return r
}

func (g gen) mutateRequest() leasegate.MutateRequest {
	r := leasegate.MutateRequest{Owner: g.Str(), Op: g.Str(), Try: g.R.IntN(2) == 0}
	if g.R.IntN(2) == 0 {
		r.RetryAfter = gate.Window{After: time.Duration(g.R.Int64()), From: gate.WindowSource(g.Str())}
	}
	if g.R.IntN(2) == 0 {
		r.HoldsGitLock = g.Str()
	}
	switch g.R.IntN(3) {
	case 0:
		r.Paths = []string{}
	case 1:
		r.Paths = []string{g.Str(), g.Str()}
		if g.R.IntN(2) == 0 {
			r.Files = []gate.File{{Path: r.Paths[1], Dev: g.R.Uint64(), Ino: g.R.Uint64()}}
		}
	}
	return r
}

// TestCodecEncodesRequestsLikeEncodingJSON: marshalRequest writes what
// json.Marshal writes, or fails where it fails.
func TestCodecEncodesRequestsLikeEncodingJSON(t *testing.T) {
	g := gen{jsontest.New(11, 12)}
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
	g := gen{jsontest.New(3, 4)}
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
	var fastLR, slowLR leasegate.LeaseResult
	errF, errS := decodeLeaseResult(in, &fastLR), json.Unmarshal(in, &slowLR)
	if (errF != nil) != (errS != nil) || !reflect.DeepEqual(fastLR, slowLR) {
		t.Fatalf("decodeLeaseResult(%s)\n= %+v, %v\nwant %+v, %v", in, fastLR, errF, slowLR, errS)
	}
	var fastR, slowR leasegate.Result
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
		`{"owner":"alice","op":"write","paths":["g"],"files":[{"path":"g","dev":2049,"ino":18446744073709551615}]}`,
		`{"owner":"alice","paths":["g"],"files":[{"ino":1,"path":"g"},{"path":"h","dev":1,"ino":2,"mode":0}]}`,
		`{"owner":"alice","paths":["g"],"files":[]}`,
		`{"owner":"alice","paths":["g"],"files":null}`,
		`{"owner":"alice","paths":["g"],"files":[{"path":"g","ino":-1}]}`,
		`{"op":"acquire","owner":{"name":"w1"},"scope":{"type":"file","paths":["g"],"files":[{"path":"g","dev":3,"ino":4}]}}`,
		`{"owner":"alice","paths":[],"force":true}`,
		`{"owner":"al\"ice","paths":["a"]}`,
		`{"owner":"alice","try":"yes"}`,
		``,
		`[]`,
	}
	for _, in := range tests {
		var fastL, slowL leasegate.LeaseRequest
		errF, errS := decodeLeaseRequest([]byte(in), &fastL), decodeJSON(strings.NewReader(in), &slowL)
		if !sameError(errF, errS) || !reflect.DeepEqual(fastL, slowL) {
			t.Errorf("decodeLeaseRequest(%s) = %+v, %v; want %+v, %v", in, fastL, errF, slowL, errS)
		}
		var fastM, slowM leasegate.MutateRequest
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
	g := gen{jsontest.New(5, 6)}
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

// TestListedStatusLikeEncodingJSON: a status whose leases are a table's
// compact list is written, over HTTP in pieces and as one answer, as
// json.Marshal writes the same status with the leases expanded.
func TestListedStatusLikeEncodingJSON(t *testing.T) {
	tb, at := gate.NewTable(), time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 3000 {
		l := gate.Lease{ID: gate.LeaseID(fmt.Sprintf("01JKW7%020d", i)), Owner: gate.Owner{Name: fmt.Sprint("w", i%7), PID: i},
			Kind: gate.KindAuto, Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{fmt.Sprintf("d%d/f%d.go", i%30, i)}},
			State: gate.StateActive, FencingToken: uint64(i + 1), AcquiredAt: at, LastHeartbeatAt: at}
		if i%5 == 0 {
			l.Kind, l.ExpiresAt = gate.KindCheckout, at.Add(time.Hour)
		}
		if err := tb.Apply(gate.Event{Type: gate.EventGranted, At: at, Lease: &l}); err != nil {
			t.Fatal(err)
		}
	}
	s := leasegate.Status{Now: at, Owners: []leasegate.OwnerView{{Owner: gate.Owner{Name: "w0"}}}, Blockers: []blocker.Report{}}
	listed := listedStatus{Status: s, list: tb.ActiveList()}
	listed.Leases = []gate.Lease{}
	s.Leases = tb.Active()
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	w := &countingWriter{ResponseRecorder: httptest.NewRecorder()}
	writeJSON(w, http.StatusOK, listed)
	if got := w.Body.String(); got != string(want)+"\n" {
		t.Fatalf("listed status over HTTP = %.200s\nwant %.200s", got, want)
	}
	if min := len(want) / statusPiece; w.writes < min {
		t.Errorf("status of %d bytes sent in %d writes, want at least %d", len(want), w.writes, min)
	}
	if got, err := marshalAnswer(listed); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("marshalAnswer(listed status) = %.200s, %v\nwant %.200s", got, err, want)
	}
}
