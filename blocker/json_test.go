package blocker_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/blocker"
)

func TestJSONRoundTrip(t *testing.T) {
	resolved := report()
	if err := resolved.Resolve(blocker.ActionAbort, "carol", retried.Add(60e9), "runaway agent"); err != nil {
		t.Fatalf("Resolve = %v", err)
	}
	for name, r := range map[string]blocker.Report{"open": report(), "resolved": resolved} {
		t.Run(name, func(t *testing.T) {
			data, err := r.JSON()
			if err != nil {
				t.Fatalf("JSON() = %v", err)
			}
			var back blocker.Report
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("Unmarshal(JSON()) = %v\n%s", err, data)
			}
			if !reflect.DeepEqual(back, r) {
				t.Errorf("Unmarshal(JSON()) =\n%+v\nwant\n%+v", back, r)
			}
		})
	}
}

func TestJSONShape(t *testing.T) {
	data, err := report().JSON()
	if err != nil {
		t.Fatalf("JSON() = %v", err)
	}
	for _, s := range []string{
		"\n  \"id\": ", // indented
		`"retry_interval_ns": 180000000000`,
		`"held_for_ns": 750000000000`,
		`"retry_from": "coordinator default"`,
		`"idle_after_ns": 10000000000`,
		`"idle_from": "flag"`,
		`"first_denied_at": "2025-03-01T12:00:00Z"`,
		`"retried_at": "2025-03-01T12:03:00Z"`,
		`"retry_result": "LEASE_HELD_BY_OTHER"`,
		`"fencing_token": 42`,
		`"lease_id": "01JNQ4A0B1C2D3E4F5G6H7J8K9"`,
		`"how_to_resolve": [`,
		`"status": "open"`,
	} {
		if !strings.Contains(string(data), s) {
			t.Errorf("JSON() lacks %s:\n%s", s, data)
		}
	}
	if strings.Contains(string(data), `"resolution"`) {
		t.Errorf("JSON() of an open report has a resolution:\n%s", data)
	}
}

func TestJSONBadDuration(t *testing.T) {
	var r blocker.Report
	if err := json.Unmarshal([]byte(`{"retry_interval": "three minutes"}`), &r); err == nil {
		t.Errorf("Unmarshal(bad retry_interval) = nil, want an error")
	}
	if err := json.Unmarshal([]byte(`{"holder": {"held_for": 12}}`), &r); err == nil {
		t.Errorf("Unmarshal(numeric held_for) = nil, want an error")
	}
}

// TestJSONReadsLegacyDurations: reports written with Go duration strings
// (older ledgers and report files) still read.
func TestJSONReadsLegacyDurations(t *testing.T) {
	var r blocker.Report
	if err := json.Unmarshal([]byte(`{"retry_interval": "3m0s", "holder": {"held_for": "12m30s", "idle_after": "10s"}}`), &r); err != nil {
		t.Fatalf("Unmarshal(legacy) = %v", err)
	}
	if r.RetryInterval != 3*time.Minute || r.Holder.HeldFor != 750*time.Second || r.Holder.IdleAfter != 10*time.Second {
		t.Errorf("Unmarshal(legacy) = retry %s, held %s, idle %s", r.RetryInterval, r.Holder.HeldFor, r.Holder.IdleAfter)
	}
}
