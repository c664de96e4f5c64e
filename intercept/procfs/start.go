//go:build linux

package procfs

import (
	"bytes"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// clockTicks is the unit of /proc/PID/stat's times: USER_HZ, 100 on every
// Linux architecture Go builds for.
const clockTicks = 100

// StartedAt returns when process pid started, on the wall clock: its start
// in clock ticks since boot (the 22nd field of /proc/PID/stat, on
// CLOCK_BOOTTIME, so a suspend does not shift it) taken back from now. It
// is good to a tick (10 ms). A process gone or unreadable has none.
func StartedAt(pid int) (time.Time, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return time.Time{}, false
	}
	// Fields after the command: state is the 3rd field, starttime the 22nd.
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseInt(string(f[19]), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return time.Time{}, false
	}
	up := time.Duration(ts.Nano())
	return time.Now().Add(-up + time.Duration(ticks)*(time.Second/clockTicks)), true
}

// IsGit reports whether process pid runs git (its command name is "git",
// or "git-" and a helper's name). One gone or unreadable does not.
func IsGit(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return false
	}
	comm := string(bytes.TrimSuffix(b, []byte("\n")))
	return comm == "git" || len(comm) > 4 && comm[:4] == "git-"
}
