package hooks

import (
	"os"
	"strconv"
)

// SidecarEnv names the variable `leasegate run` sets in its worker's
// environment: the sidecar's pid.
const SidecarEnv = "LEASEGATE_SIDECAR"

// UnderSidecar reports whether the calling process runs inside a worker of
// `leasegate run`: SidecarEnv names a pid, and that process is one of the
// caller's ancestors (an inherited or hand-set variable alone is not
// enough). Every mutation of such a process is already gated by its
// sidecar, which also refuses it the state directory.
func UnderSidecar() bool {
	pid, err := strconv.Atoi(os.Getenv(SidecarEnv))
	if err != nil || pid <= 1 {
		return false
	}
	return isAncestor(pid, os.Getppid())
}

// isAncestor reports whether pid is from or one of from's ancestors.
func isAncestor(pid, from int) bool {
	for i := 0; i < 64 && from > 1; i++ {
		if from == pid {
			return true
		}
		st, err := procStat(from)
		if err != nil {
			return false
		}
		from = st.ppid
	}
	return false
}
