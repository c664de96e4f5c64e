package console

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// isLeasegate checks /proc/PID/comm.
func isLeasegate(pid int) error {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return fmt.Errorf("coordinator pid %d: %w", pid, err)
	}
	if comm := strings.TrimSpace(string(b)); comm != "leasegate" {
		return fmt.Errorf("coordinator pid %d is %q here: another pid namespace", pid, comm)
	}
	return nil
}
