//go:build !windows

package api_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used: client,
// server, coordinator and ledger all run in it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
