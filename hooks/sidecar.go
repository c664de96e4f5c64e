package hooks

import (
	"os"
	"strconv"

	"github.com/leasegate/leasegate/internal/envname"
)

// UnderSidecar reports whether the calling process runs inside a worker of
// `leasegate run`: envname.Sidecar names a pid, and that process is one of the
// caller's ancestors (an inherited or hand-set variable alone is not
// enough). Every mutation of such a process is already gated by its
// sidecar, which also refuses it the state directory.
func UnderSidecar() bool {
	pid, err := strconv.Atoi(os.Getenv(envname.Sidecar))
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
