//go:build !windows

package liveness_test

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

func TestEvaluateRunningProcessIsAlive(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	got := MustEvaluator(t).Evaluate(liveness.Subject{Owner: MustOwner(t, pid)}, now)
	if got.Status != gate.Alive {
		t.Fatalf("Evaluate(sleep pid %d) = %v, want %v", pid, got, gate.Alive)
	}
	if want := fmt.Sprintf("pid %d running since ", pid); !hasEvidence(got, want) {
		t.Errorf("Evaluate(sleep pid %d).Evidence = %q, want a line with %q", pid, got.Evidence, want)
	}
	if !got.CheckedAt.Equal(now) {
		t.Errorf("Evaluate(...).CheckedAt = %v, want %v", got.CheckedAt, now)
	}
}

func TestEvaluateKilledProcessIsDead(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	owner := MustOwner(t, pid)
	MustSignal(t, pid, syscall.SIGKILL)
	_ = cmd.Wait() // reaped: the pid is gone from /proc

	got := MustEvaluator(t).Evaluate(liveness.Subject{Owner: owner}, now)
	if got.Status != gate.Dead {
		t.Fatalf("Evaluate(killed pid %d) = %v, want %v", pid, got, gate.Dead)
	}
	if want := fmt.Sprintf("pid %d not found", pid); !hasEvidence(got, want) {
		t.Errorf("Evaluate(killed pid %d).Evidence = %q, want a line with %q", pid, got.Evidence, want)
	}
}

// TestEvaluateReusedPid checks that a pid held by a process with another
// start time is not the owner. Pid reuse looks exactly like this: the
// owner exits, the kernel hands its pid to a new process, and a lookup of
// the pid finds a live process whose create time is not the one the owner
// registered. A live sleep with a StartTime shifted from its real one is
// that picture without waiting for the pid space to wrap.
func TestEvaluateReusedPid(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	actual := MustOwner(t, pid)
	tests := []struct {
		name   string
		offset time.Duration // added to the real start time
		want   gate.LivenessStatus
	}{
		{name: "exact start", offset: 0, want: gate.Alive},
		{name: "owner started an hour earlier", offset: -time.Hour, want: gate.Dead},
		{name: "owner started an hour later", offset: time.Hour, want: gate.Dead},
		{name: "boot time read a second apart", offset: liveness.StartSlack, want: gate.Alive},
		{name: "a second apart the other way", offset: -liveness.StartSlack, want: gate.Alive},
		{name: "just past the slack", offset: liveness.StartSlack + time.Millisecond, want: gate.Dead},
	}
	e := MustEvaluator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			owner := actual
			owner.StartTime += tt.offset.Milliseconds()
			got := e.Evaluate(liveness.Subject{Owner: owner}, now)
			if got.Status != tt.want {
				t.Fatalf("Evaluate(pid %d, start %+v) = %v, want %v", pid, tt.offset, got, tt.want)
			}
			if want := fmt.Sprintf("pid %d now belongs to a process started at ", pid); tt.want == gate.Dead && !hasEvidence(got, want) {
				t.Errorf("Evaluate(pid %d).Evidence = %q, want a line with %q", pid, got.Evidence, want)
			}
		})
	}
}

// TestEvaluateOtherStartWithHeartbeat checks that a start-time mismatch
// is not called dead while the owner's own heartbeat says it is there (a
// stepped wall clock shifts create times), and is dead once the heartbeat
// is stale too.
func TestEvaluateOtherStartWithHeartbeat(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	owner := MustOwner(t, pid)
	owner.StartTime -= time.Minute.Milliseconds()
	tests := []struct {
		name    string
		age     time.Duration
		want    gate.LivenessStatus
		witness string
	}{
		{name: "heartbeat within the ttl", age: liveness.DefaultTTL, want: gate.Unknown, witness: "is within the ttl"},
		{name: "heartbeat past the ttl", age: liveness.DefaultTTL + time.Nanosecond, want: gate.Dead, witness: "is older than the ttl"},
	}
	e := MustEvaluator(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.Evaluate(liveness.Subject{Owner: owner, LastHeartbeat: now.Add(-tt.age)}, now)
			if got.Status != tt.want || !hasEvidence(got, tt.witness) || !hasEvidence(got, "now belongs to a process") {
				t.Fatalf("Evaluate(pid %d, other start, heartbeat age %v) = %v, want %v with %q", pid, tt.age, got, tt.want, tt.witness)
			}
		})
	}
}

func TestEvaluateStopAndContinue(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	e := MustEvaluator(t)
	s := liveness.Subject{Owner: MustOwner(t, pid)}

	MustSignal(t, pid, syscall.SIGSTOP)
	AwaitChild(t, pid, unix.WSTOPPED)
	if got := e.Evaluate(s, now); got.Status != gate.Stopped || !hasEvidence(got, "stopped (state T)") {
		t.Fatalf("Evaluate(pid %d after SIGSTOP) = %v, want %v with evidence", pid, got, gate.Stopped)
	}

	MustSignal(t, pid, syscall.SIGCONT)
	AwaitChild(t, pid, unix.WCONTINUED)
	if got := e.Evaluate(s, now); got.Status != gate.Alive {
		t.Fatalf("Evaluate(pid %d after SIGCONT) = %v, want %v", pid, got, gate.Alive)
	}
}

func TestEvaluateZombieIsDead(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	owner := MustOwner(t, pid)
	MustSignal(t, pid, syscall.SIGKILL)
	AwaitChild(t, pid, unix.WEXITED) // exited, not reaped: a zombie until cleanup's Wait

	got := MustEvaluator(t).Evaluate(liveness.Subject{Owner: owner}, now)
	if got.Status != gate.Dead || !hasEvidence(got, "zombie") {
		t.Fatalf("Evaluate(zombie pid %d) = %v, want %v with zombie evidence", pid, got, gate.Dead)
	}
}

// TestEvaluateLiveProcessStaleHeartbeat checks the conservative rule: a
// process that is there keeps its verdict whatever its heartbeat says, and
// the stale heartbeat is only noted.
func TestEvaluateLiveProcessStaleHeartbeat(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	e := MustEvaluator(t)
	s := liveness.Subject{Owner: MustOwner(t, pid), LastHeartbeat: now.Add(-time.Hour)}

	got := e.Evaluate(s, now)
	if got.Status != gate.Alive || !hasEvidence(got, "heartbeat stale") {
		t.Fatalf("Evaluate(live pid %d, heartbeat 1h old) = %v, want %v noting the stale heartbeat", pid, got, gate.Alive)
	}
	s.LastHeartbeat = now.Add(-time.Second)
	if got := e.Evaluate(s, now); hasEvidence(got, "heartbeat stale") {
		t.Errorf("Evaluate(live pid %d, heartbeat 1s old).Evidence = %q, want no stale note", pid, got.Evidence)
	}
}

func TestEvaluateWithoutStartTime(t *testing.T) {
	owner := gate.Owner{Name: "alice", Host: here, PID: os.Getpid()}
	got := MustEvaluator(t).Evaluate(liveness.Subject{Owner: owner}, now)
	if got.Status != gate.Alive || !hasEvidence(got, "no start time") {
		t.Fatalf("Evaluate(own pid, no start time) = %v, want %v noting the missing start time", got, gate.Alive)
	}
}

func TestEvaluateLookupFailure(t *testing.T) {
	owner := gate.Owner{Name: "alice", Host: here, PID: 4242, StartTime: 1}
	tests := []struct {
		name    string
		err     error
		status  string
		hb      time.Time
		want    gate.LivenessStatus
		witness string
	}{
		{name: "permission denied", err: fmt.Errorf("pid 4242: %w", os.ErrPermission), want: gate.Unknown, witness: "lookup failed"},
		{name: "error and stale heartbeat", err: errors.New("malformed /proc"), hb: now.Add(-time.Hour), want: gate.Unknown, witness: "heartbeat stale"},
		{name: "not found", err: fmt.Errorf("pid 4242: %w", liveness.ErrProcessNotFound), want: gate.Dead, witness: "pid 4242 not found"},
		{name: "unknown state is alive", status: "", want: gate.Alive, witness: "running since"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := MustEvaluator(t)
			liveness.SetLookup(e, func(int) (int64, string, error) { return 1, tt.status, tt.err })
			got := e.Evaluate(liveness.Subject{Owner: owner, LastHeartbeat: tt.hb}, now)
			if got.Status != tt.want || !hasEvidence(got, tt.witness) {
				t.Fatalf("Evaluate(lookup error %v) = %v, want %v with %q", tt.err, got, tt.want, tt.witness)
			}
		})
	}
}

func TestProcessStart(t *testing.T) {
	before := time.Now()
	cmd := MustStart(t, false, "sleep", "30")
	pid := cmd.Process.Pid
	got, err := liveness.ProcessStart(pid)
	if err != nil {
		t.Fatalf("ProcessStart(%d) = %v", pid, err)
	}
	// On Linux gopsutil adds whole seconds since boot to the boot time in
	// whole seconds, so each truncation may put the start up to a second
	// early; it is never later than now.
	earliest := before.Add(-2 * time.Second)
	if start := time.UnixMilli(got); start.Before(earliest) || start.After(time.Now()) {
		t.Errorf("ProcessStart(%d) = %v, want between %v and now", pid, start, earliest)
	}
	again, err := liveness.ProcessStart(pid)
	if err != nil || again != got {
		t.Errorf("ProcessStart(%d) again = %d, %v; want %d (a process's start never changes)", pid, again, err, got)
	}
}

func TestProcessStartErrors(t *testing.T) {
	cmd := MustStart(t, false, "sleep", "30")
	gone := cmd.Process.Pid
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	tests := []struct {
		name string
		pid  int
		want error
	}{
		{name: "reaped", pid: gone, want: liveness.ErrProcessNotFound},
		{name: "zero", pid: 0, want: liveness.ErrInvalidPID},
		{name: "negative", pid: -1, want: liveness.ErrInvalidPID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := liveness.ProcessStart(tt.pid); !errors.Is(err, tt.want) {
				t.Errorf("ProcessStart(%d) = %v, want %v", tt.pid, err, tt.want)
			}
		})
	}
}
