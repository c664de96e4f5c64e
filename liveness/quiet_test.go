package liveness_test

import (
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

// TestEvaluateQuietSinceStart: an owner judged by heartbeat with none
// recorded is unknown, unless the judge has listened for a whole TTL since
// QuietSince (a restarted coordinator) and heard none: then dead, with
// evidence that says so.
func TestEvaluateQuietSinceStart(t *testing.T) {
	own := 15 * time.Minute
	owner := gate.Owner{Name: "cc-s", Host: here}
	tests := []struct {
		name  string
		quiet time.Duration // now minus QuietSince; -1: QuietSince unset
		want  gate.LivenessStatus
		says  string
	}{
		{name: "never listened", quiet: -1, want: gate.Unknown, says: "no heartbeat recorded"},
		{name: "just restarted", quiet: 0, want: gate.Unknown, says: "within the ttl"},
		{name: "just restarted, says when", quiet: 0, want: gate.Unknown, says: "dead at " + now.Add(own).UTC().Format(time.RFC3339) + " unless it beats"},
		{name: "later, says when", quiet: 5 * time.Minute, want: gate.Unknown, says: "dead at " + now.Add(10*time.Minute).UTC().Format(time.RFC3339) + " unless it beats"},
		{name: "exactly the ttl", quiet: own, want: gate.Unknown, says: "within the ttl"},
		{name: "ttl plus 1ns", quiet: own + time.Nanosecond, want: gate.Dead, says: "no heartbeat since the coordinator started"},
	}
	e := MustEvaluator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := liveness.Subject{Owner: owner, TTL: own}
			if tt.quiet >= 0 {
				s.QuietSince = now.Add(-tt.quiet)
			}
			got := e.Evaluate(s, now)
			if got.Status != tt.want || !strings.Contains(strings.Join(got.Evidence, "; "), tt.says) {
				t.Fatalf("Evaluate(quiet for %v) = %v %q, want %v saying %q", tt.quiet, got.Status, got.Evidence, tt.want, tt.says)
			}
		})
	}
	// A heartbeat heard since the start decides instead.
	s := liveness.Subject{Owner: owner, TTL: own, QuietSince: now.Add(-time.Hour), LastHeartbeat: now.Add(-time.Minute)}
	if got := e.Evaluate(s, now); got.Status != gate.Alive {
		t.Fatalf("Evaluate(beat a minute ago, quiet since an hour) = %v, want alive", got)
	}
}
