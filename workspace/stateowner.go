package workspace

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
)

// ForeignStateError means the workspace's state directory, or the socket
// in it, belongs to another user than the one running this process. The
// state directory is private to the user whose coordinator made it (0700,
// the socket 0600): the kernel names that user's processes to the
// coordinator, and its ledger, log and reports are that user's files. So
// another user can neither reach that coordinator nor start a second one
// there, and must not take the ledger's silence for "nothing is held".
type ForeignStateError struct {
	// Path is the file another user owns: the state directory or its socket.
	Path string
	// UID is its owner's uid; Owner is the owner's user name, or the uid
	// when the system has no name for it.
	UID   int
	Owner string
	// AsRoot is set when root was refused: it reaches the owner's
	// coordinator, but starts none there.
	AsRoot bool
}

func (e *ForeignStateError) Error() string {
	if e.AsRoot {
		return fmt.Sprintf("%s belongs to user %s (uid %d): root starts no coordinator there, since the files it made "+
			"would be root's and lock %s out of the ledger; start it as %s (`leasegate serve` in the workspace), "+
			"and root's commands reach it", e.Path, e.Owner, e.UID, e.Owner, e.Owner)
	}
	me := strconv.Itoa(os.Geteuid())
	if u, err := user.Current(); err == nil {
		me = u.Username
	}
	return fmt.Sprintf("%s belongs to user %s (uid %d), not to %s: a workspace's coordinator serves the one user "+
		"who owns its state directory, and no other user can reach it or start another there; "+
		"run this as %s, or work in a checkout of your own (git worktree add)", e.Path, e.Owner, e.UID, me, e.Owner)
}

// CheckStateOwner returns a *ForeignStateError when the state directory or
// its socket exists and another user owns it. Root reaches any user's
// coordinator (the kernel lets it through the directory's mode), so it is
// never refused here; EnsureStateDir refuses it a coordinator of its own
// in another user's state directory.
func (w *Workspace) CheckStateOwner() error {
	if os.Geteuid() == 0 {
		return nil
	}
	for _, p := range []string{w.StateDir, w.SocketPath()} {
		if err := checkOwner(p); err != nil {
			return err
		}
	}
	return nil
}

// checkOwner returns a *ForeignStateError when the file at path exists and
// another user owns it. A path that cannot be looked at is left to the
// call that uses it, which names its own error.
func checkOwner(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	uid, ok := fileOwner(fi)
	if !ok || uid == os.Geteuid() {
		return nil
	}
	name := strconv.Itoa(uid)
	if u, err := user.LookupId(name); err == nil {
		name = u.Username
	}
	return &ForeignStateError{Path: path, UID: uid, Owner: name, AsRoot: os.Geteuid() == 0}
}
