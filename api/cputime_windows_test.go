package api_test

import (
	"time"

	"golang.org/x/sys/windows"
)

// cpuTime is the CPU time (user and system) the process has used: client,
// server, coordinator and ledger all run in it.
func cpuTime() time.Duration {
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user) != nil {
		return 0
	}
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100) // 100 ns units
}
