//go:build linux && (amd64 || arm64)

package seccomp

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// errUnresolvable refuses (EACCES) a syscall whose directory or file the
// sidecar cannot name: the /proc link of an fd or working directory that
// does not lead back to the same file. A tree detached by open_tree, a
// directory opened by handle after its dentry was dropped, a mount in
// another namespace: each shows a path ("/", or one of another mount
// namespace) where something else lies. Resolved from there, a write in
// the workspace would look like one outside it, and be allowed.
var errUnresolvable = errors.New("fd or working directory has no path the sidecar can resolve")

// verifyLink checks that link, read from the magic link at proc, names
// the file the magic link leads to: same device and inode. Links that are
// not paths (pipe:[...], anon_inode:...) and names of deleted files are
// left to the resolver.
func verifyLink(proc, link string) error {
	if !strings.HasPrefix(link, "/") || isDeleted(link) {
		return nil
	}
	var real, named unix.Stat_t
	if err := unix.Stat(proc, &real); err != nil {
		return err
	}
	if err := unix.Stat(link, &named); err != nil || named.Dev != real.Dev || named.Ino != real.Ino {
		return errUnresolvable
	}
	return nil
}
