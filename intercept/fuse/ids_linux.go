//go:build amd64 || arm64

package fuse

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// ids is how the view shows owners and groups to the kernel. In a user
// namespace of the user's own (unshare -Ur), a group the namespace does
// not map (a shared checkout's, such as team) reads as the overflow gid,
// and the kernel gives no write access to a FUSE inode whose group it
// cannot map, though the user may write it outside the view. Such a group
// is shown as the sidecar's own: the sidecar still makes every change as
// the user, so the file system's own check is the one that counts.
type ids struct {
	unmappedGID uint32 // the overflow gid where it means "not mapped", else none
	ownGID      uint32
}

// noGID matches no group.
const noGID = ^uint32(0)

// newIDs reads this process's user namespace: in the initial one, or in
// one that maps the overflow gid, no group is shown otherwise.
func newIDs() ids {
	m := ids{unmappedGID: noGID, ownGID: uint32(os.Getgid())}
	b, err := os.ReadFile("/proc/sys/kernel/overflowgid")
	if err != nil {
		return m
	}
	overflow, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return m
	}
	f, err := os.Open("/proc/self/gid_map")
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			return m
		}
		inside, err1 := strconv.ParseUint(fs[0], 10, 32)
		count, err2 := strconv.ParseUint(fs[2], 10, 32)
		if err1 != nil || err2 != nil || overflow >= inside && overflow-inside < count {
			return m // mapped (the initial namespace maps every gid)
		}
	}
	m.unmappedGID = uint32(overflow)
	return m
}

// show changes attr to what the kernel is told.
func (m ids) show(attr *fuse.Attr) {
	if attr.Gid == m.unmappedGID {
		attr.Gid = m.ownGID
	}
}

// asOwnCaller is ctx without its FUSE caller when that caller has the
// sidecar's own ids: the loopback, when it runs as (namespace) root,
// gives each name it makes the caller's owner and group, which for the
// sidecar's own ids changes nothing but the group a set-group-ID
// directory gave it, and outside the namespace's map cannot give back.
func asOwnCaller(ctx context.Context) context.Context {
	c, ok := fuse.FromContext(ctx)
	if !ok || int(c.Uid) != os.Getuid() || int(c.Gid) != os.Getgid() {
		return ctx
	}
	return callerless{ctx}
}

// callerless hides a context's FUSE caller.
type callerless struct{ context.Context }

func (c callerless) Value(key any) any {
	v := c.Context.Value(key)
	if _, isCaller := v.(*fuse.Caller); isCaller {
		return nil
	}
	return v
}
