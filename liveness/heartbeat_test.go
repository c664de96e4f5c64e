package liveness_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/childtest"
	"github.com/leasegate/leasegate/liveness"
)

func TestEvaluateByHeartbeat(t *testing.T) {
	const (
		ttl      = liveness.DefaultTTL
		interval = liveness.DefaultHeartbeatInterval
		own      = 15 * time.Minute // an owner's own ttl (a hook session)
	)
	remote := gate.Owner{Name: "bob", Host: "host-b", PID: 1, StartTime: 1}
	tests := []struct {
		name  string
		owner gate.Owner
		age   time.Duration // now minus the last heartbeat
		never bool          // the owner never beat
		ttl   time.Duration // the owner's own, if any
		want  gate.LivenessStatus
	}{
		{name: "never beat", owner: remote, never: true, want: gate.Unknown},
		{name: "just beat", owner: remote, age: 0, want: gate.Alive},
		{name: "one interval", owner: remote, age: interval, want: gate.Alive},
		{name: "one missed beat", owner: remote, age: 2 * interval, want: gate.Alive},
		{name: "exactly the ttl", owner: remote, age: ttl, want: gate.Alive},
		{name: "ttl plus 1ns", owner: remote, age: ttl + time.Nanosecond, want: gate.Dead},
		{name: "an hour", owner: remote, age: time.Hour, want: gate.Dead},
		{name: "heartbeat from a clock ahead", owner: remote, age: -time.Second, want: gate.Alive},
		{name: "pid 0 on this host", owner: gate.Owner{Name: "carol", Host: here}, age: ttl + time.Nanosecond, want: gate.Dead},
		{name: "pid 0 on this host never beat", owner: gate.Owner{Name: "carol", Host: here}, never: true, want: gate.Unknown},
		{name: "no host", owner: gate.Owner{Name: "dave", PID: 1}, age: ttl, want: gate.Alive},
		{name: "no host, stale", owner: gate.Owner{Name: "dave", PID: 1}, age: ttl + 1, want: gate.Dead},
		{name: "own ttl, past the default", owner: gate.Owner{Name: "cc-s", Host: here}, ttl: own, age: ttl + time.Minute, want: gate.Alive},
		{name: "own ttl, past it", owner: gate.Owner{Name: "cc-s", Host: here}, ttl: own, age: own + time.Nanosecond, want: gate.Dead},
	}
	e := MustEvaluator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := liveness.Subject{Owner: tt.owner, LastHeartbeat: now.Add(-tt.age), TTL: tt.ttl}
			if tt.never {
				s.LastHeartbeat = time.Time{}
			}
			got := e.Evaluate(s, now)
			if got.Status != tt.want {
				t.Fatalf("Evaluate(%+v, heartbeat age %v) = %v, want %v", tt.owner, tt.age, got, tt.want)
			}
			if !hasEvidence(got, "judged by heartbeat") {
				t.Errorf("Evaluate(%+v).Evidence = %q, want a line saying it was judged by heartbeat", tt.owner, got.Evidence)
			}
		})
	}
}

// TestEvaluateRemoteIgnoresPid gives a remote owner the pid of a live
// local process and of a reaped one: only the heartbeat decides.
func TestEvaluateRemoteIgnoresPid(t *testing.T) {
	live, reaped := childtest.Start(t), childtest.Reaped(t)
	e := MustEvaluator(t)
	tests := []struct {
		name string
		pid  int
		age  time.Duration
		want gate.LivenessStatus
	}{
		{name: "pid of a live local process, stale heartbeat", pid: live.Process.Pid, age: time.Minute, want: gate.Dead},
		{name: "pid of a reaped local process, fresh heartbeat", pid: reaped, age: time.Second, want: gate.Alive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			owner := gate.Owner{Name: "bob", Host: "host-b", PID: tt.pid, StartTime: 1}
			got := e.Evaluate(liveness.Subject{Owner: owner, LastHeartbeat: now.Add(-tt.age)}, now)
			if got.Status != tt.want {
				t.Fatalf("Evaluate(remote pid %d, age %v) = %v, want %v", tt.pid, tt.age, got, tt.want)
			}
		})
	}
}

func TestEvaluateDeadHeartbeatEvidence(t *testing.T) {
	last := time.Date(2025, 3, 1, 11, 59, 35, 0, time.FixedZone("CET", 3600)) // 10:59:35Z
	at := last.Add(25 * time.Second)
	owner := gate.Owner{Name: "bob", Host: "host-b", PID: 7}
	got := MustEvaluator(t).Evaluate(liveness.Subject{Owner: owner, LastHeartbeat: last}, at)
	want := fmt.Sprintf("last heartbeat at 2025-03-01T10:59:35Z, 25s ago, older than the ttl %s", liveness.DefaultTTL)
	if got.Status != gate.Dead || !hasEvidence(got, want) {
		t.Fatalf("Evaluate(heartbeat 25s old) = %v, want %v with %q", got, gate.Dead, want)
	}
	if !hasEvidence(got, "owner on host host-b, not this host host-a") {
		t.Errorf("Evaluate(remote).Evidence = %q, want the hosts named", got.Evidence)
	}
}

func TestCheckReadsTheClock(t *testing.T) {
	mock := clock.NewMock()
	mock.Set(now)
	e := MustEvaluator(t, func(c *liveness.Config) { c.Clock = mock })
	s := liveness.Subject{Owner: gate.Owner{Name: "bob", Host: "host-b"}, LastHeartbeat: now}

	mock.Add(liveness.DefaultTTL)
	if got := e.Check(s); got.Status != gate.Alive || !got.CheckedAt.Equal(now.Add(liveness.DefaultTTL)) {
		t.Fatalf("Check(heartbeat a ttl old) = %v, want %v checked at %v", got, gate.Alive, now.Add(liveness.DefaultTTL))
	}
	mock.Add(time.Nanosecond)
	if got := e.Check(s); got.Status != gate.Dead {
		t.Fatalf("Check(heartbeat a ttl + 1ns old) = %v, want %v", got, gate.Dead)
	}
}
