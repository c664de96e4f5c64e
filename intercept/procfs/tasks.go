//go:build linux

package procfs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// UserTasks counts the processes and threads whose real user id is uid,
// as the kernel counts them against that user's RLIMIT_NPROC (`ulimit
// -u`), among those this /proc shows. A process that ends while it is
// read is left out.
func UserTasks(uid int) (int, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return 0, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, name := range names {
		if _, err := strconv.Atoi(name); err != nil {
			continue
		}
		if real, threads, ok := readTasks(name); ok && real == uid {
			n += threads
		}
	}
	return n, nil
}

// Threads returns how many threads process pid runs.
func Threads(pid int) (int, error) {
	_, threads, ok := readTasks(strconv.Itoa(pid))
	if !ok {
		return 0, fmt.Errorf("read the threads of process %d from /proc/%d/status", pid, pid)
	}
	return threads, nil
}

// readTasks reads a process's real user id and its number of threads.
func readTasks(pid string) (uid, threads int, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0, 0, false
	}
	uid = -1
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		switch {
		case k == "Uid" && len(f) == 4:
			uid, _ = strconv.Atoi(f[0])
		case k == "Threads" && len(f) == 1:
			threads, _ = strconv.Atoi(f[0])
		}
	}
	return uid, threads, uid >= 0 && threads > 0
}
