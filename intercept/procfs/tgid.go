//go:build linux

package procfs

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Tgid is the process (thread group id) of thread tid: the Tgid line of
// /proc/<tid>/status.
func Tgid(tid int) (int, error) {
	path := "/proc/" + strconv.Itoa(tid) + "/status"
	status, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("no tgid in %s", path)
}

// InProcess reports whether thread tid is part of process tgid right now.
// tgkill with signal 0 sends nothing: it looks the thread up in that
// process (ESRCH if it is not there) and then checks the permission to
// signal it, so EPERM also means that it belongs. It costs one syscall,
// where Tgid reads and parses a /proc file.
func InProcess(tid, tgid int) bool {
	err := unix.Tgkill(tgid, tid, 0)
	return err == nil || err == unix.EPERM
}
