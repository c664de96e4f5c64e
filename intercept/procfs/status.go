//go:build linux

package procfs

import (
	"os"
	"strconv"
	"strings"
)

// Status is what a thread's /proc/TID/status says about the files it
// creates: its filesystem user and group ids, and its umask.
type Status struct {
	FSUID, FSGID int
	Umask        uint32
}

// ReadStatus reads a thread's filesystem ids and umask.
func ReadStatus(tid int) (Status, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return Status{}, err
	}
	var st Status
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		switch {
		case k == "Umask" && len(f) == 1:
			u, _ := strconv.ParseUint(f[0], 8, 32)
			st.Umask = uint32(u)
		case k == "Uid" && len(f) == 4:
			st.FSUID, _ = strconv.Atoi(f[3])
		case k == "Gid" && len(f) == 4:
			st.FSGID, _ = strconv.Atoi(f[3])
		}
	}
	return st, nil
}
