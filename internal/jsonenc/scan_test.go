package jsonenc_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/leasegate/leasegate/internal/jsonenc"
)

// TestScannerAgreesWithEncodingJSON: what the scanner reads is what
// encoding/json reads, and what it cannot read the same way it refuses.
func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	ints := []string{"0", "7", "-7", "-0", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "01", "1.0", "1e3", "-", "- 1", "", "x", "18446744073709551616"}
	for _, in := range ints {
		s := jsonenc.NewScanner([]byte(in))
		got := s.Int(math.MinInt64, math.MaxInt64)
		s.End()
		var want int64
		wantErr := json.Unmarshal([]byte(in), &want)
		if !s.Failed() && (wantErr != nil || got != want) {
			t.Errorf("Int(%q) = %d, encoding/json: %d, %v", in, got, want, wantErr)
		}
		if s.Failed() && wantErr == nil {
			t.Errorf("Int(%q) failed, encoding/json read %d", in, want)
		}
	}
	strs := []string{`"a"`, `""`, `"é"`, `"a\"b"`, `"a\nb"`, "\"\xff\"", `"unclosed`, "\"tab\there\"", `x`}
	for _, in := range strs {
		s := jsonenc.NewScanner([]byte(in))
		got := string(s.Quoted())
		s.End()
		var want string
		wantErr := json.Unmarshal([]byte(in), &want)
		if !s.Failed() && (wantErr != nil || got != want) {
			t.Errorf("Quoted(%q) = %q, encoding/json: %q, %v", in, got, want, wantErr)
		}
	}
	times := []struct {
		in string
		ok bool
	}{
		{in: `"2026-11-25T18:00:00Z"`, ok: true},
		{in: `"2026-11-25T18:00:00.5+01:00"`, ok: true},
		{in: `"yesterday"`},
		{in: `"2026-11-25T18:00:00Z`},
		{in: `2026`},
	}
	for _, tt := range times {
		s := jsonenc.NewScanner([]byte(tt.in))
		got := s.Time()
		s.End()
		var want time.Time
		wantErr := want.UnmarshalJSON([]byte(tt.in))
		if s.Failed() == tt.ok || tt.ok && (wantErr != nil || !got.Equal(want)) {
			t.Errorf("Time(%q) = %v, failed %v; time.Time reads %v, %v", tt.in, got, s.Failed(), want, wantErr)
		}
	}
}
