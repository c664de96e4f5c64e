package blocker_test

import (
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

var (
	acquired    = time.Date(2025, 3, 1, 11, 50, 30, 0, time.UTC)
	firstDenied = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	retried     = firstDenied.Add(180 * time.Second)
)

// input is the denial of the fixed report the golden file shows: alice's
// write of src/foo.go, held by bob since 11:50:30, retried at 12:03:00.
func input() blocker.Input {
	return blocker.Input{
		ID:        "01JNQ5Z6S4B3M2X8K7V9T0R1YA",
		Path:      "src/foo.go",
		Paths:     []string{"src/foo.go", "src/foo_test.go"},
		Op:        "write",
		Requester: gate.Owner{Name: "alice", Host: "dev1", PID: 1234, StartTime: 1740826800000},
		Holder: gate.Lease{
			ID:           "01JNQ4A0B1C2D3E4F5G6H7J8K9",
			Owner:        gate.Owner{Name: "bob", Host: "dev1", PID: 4321, StartTime: 1740826200000},
			Kind:         gate.KindAuto,
			Scope:        gate.Scope{Type: gate.ScopeFile, Paths: []string{"src/foo.go", "src/foo_test.go"}},
			State:        gate.StateActive,
			FencingToken: 42,
			AcquiredAt:   acquired,
		},
		HolderLiveness: gate.Liveness{
			Status:    gate.Alive,
			CheckedAt: retried,
			Evidence: []string{
				"pid 4321 running since 2025-03-01T10:50:00Z (state sleep)",
				"heartbeat stale: last at 2025-03-01T12:02:30Z, 30s ago, older than the ttl 10s; the process is there, so the owner is not dead",
			},
		},
		FirstDeniedAt: firstDenied,
		RetryAt:       retried,
		RetriedAt:     retried,
		RetryInterval: 180 * time.Second,
		RetryFrom:     gate.FromCoordinator,
		HolderIdle:    gate.Window{After: 10 * time.Second, From: gate.FromFlag},
		RetryResult:   gate.ReasonHeldByOther,
	}
}

func report() blocker.Report { return blocker.New(input()) }
