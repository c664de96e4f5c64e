package workspace

import (
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/gate"
)

// bornAfter reports whether the path holds f's file (device and inode) and
// that file was made after t, by its birth time (statx). A file system
// that keeps no birth time answers false.
func bornAfter(root string, f gate.File, t time.Time) bool {
	var st unix.Statx_t
	p := filepath.Join(root, filepath.FromSlash(gate.Unescape(f.Path)))
	if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_BTIME, &st); err != nil {
		return false
	}
	if st.Mask&unix.STATX_BTIME == 0 || st.Ino != f.Ino || unix.Mkdev(st.Dev_major, st.Dev_minor) != f.Dev {
		return false
	}
	return time.Unix(st.Btime.Sec, int64(st.Btime.Nsec)).After(t)
}
