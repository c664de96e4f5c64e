//go:build linux

package procfs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
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
