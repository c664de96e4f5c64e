//go:build !windows

package workspace

import (
	"os"
	"syscall"
)

// oNoFollow makes an open of a final symlink fail instead of following it.
const oNoFollow = syscall.O_NOFOLLOW

// ownedByMe reports whether the effective user owns the file fi describes.
func ownedByMe(fi os.FileInfo) bool {
	uid, ok := fileOwner(fi)
	return ok && uid == os.Geteuid()
}

// fileOwner is the uid of the user who owns the file fi describes.
func fileOwner(fi os.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// sameVolume reports whether a and b are on one file system.
func sameVolume(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev == sb.Dev
}

// fileID returns the device and inode of the file at path, not following
// a final symlink; ok is false for a directory or a path that does not
// exist. One lstat.
func fileID(path string) (dev, ino uint64, ok bool) {
	var st syscall.Stat_t
	if syscall.Lstat(path, &st) != nil || st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}
