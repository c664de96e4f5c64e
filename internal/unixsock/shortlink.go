//go:build !windows

package unixsock

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// linkRoot is where this user's short names of socket directories live:
// /tmp/leasegate-UID, mode 0700. /tmp is short on every Unix (macOS's
// per-user $TMPDIR is not: about 50 bytes of its 104).
func linkRoot() string { return filepath.Join("/tmp", "leasegate-"+strconv.Itoa(os.Getuid())) }

// reachByLink calls use with root/HASH/NAME, where root/HASH is a
// symlink to the socket's directory: the kernel resolves the link as it
// binds or connects, so the socket keeps its place, mode and owner. It is
// for systems without /proc/self/fd (macOS, the BSDs). root must be a
// directory only this user may write, or another user could point the
// link at a socket of theirs; it is made if missing, refused if not.
func reachByLink(root, path string, use func(addr string) error) error {
	dir, name := split(path)
	if err := privateDir(root); err != nil {
		return tooLong(path, fmt.Sprintf("no short name of its directory can be made (%v)", err))
	}
	sum := sha256.Sum256([]byte(dir))
	link := filepath.Join(root, hex.EncodeToString(sum[:8]))
	if err := pointLink(link, dir); err != nil {
		return tooLong(path, fmt.Sprintf("no short name of its directory can be made (%v)", err))
	}
	short := filepath.Join(link, name)
	if !fits(short) {
		return tooLong(path, fmt.Sprintf("so is its name %s", name))
	}
	return use(short)
}

// privateDir makes root with mode 0700, or checks that the existing one
// is a directory (not a symlink) this user owns and no one else may write.
func privateDir(root string) error {
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is not a directory of this user that only it may write", root)
	}
	return nil
}

// pointLink makes link a symlink to dir, replacing (atomically, by
// rename) one that points elsewhere.
func pointLink(link, dir string) error {
	if got, err := os.Readlink(link); err == nil && got == dir {
		return nil
	}
	tmp := link + ".new" + strconv.Itoa(os.Getpid())
	_ = os.Remove(tmp)
	if err := os.Symlink(dir, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, link); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}
