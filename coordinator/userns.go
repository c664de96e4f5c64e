package coordinator

import (
	"strconv"
	"strings"
)

// uidMap is the coordinator's user namespace's uid_map: a peer's uid from
// SO_PEERCRED is the coordinator's namespace's, so a coordinator in
// `unshare -Ur` (a rootless container) sees its own user as uid 0; the
// map gives the uid the parent namespace (the host's, one level down)
// knows that user by, which is what an operator's record names. Nil is
// no user namespace of its own: uids as they are.
type uidMap []uidRange

// uidRange is one line of a uid_map: count uids from inside are outside
// and on.
type uidRange struct{ inside, outside, count uint64 }

// parseUIDMap reads a uid_map (lines of "inside outside count"). The
// identity map of the initial namespace is nil.
func parseUIDMap(s string) uidMap {
	var m uidMap
	for line := range strings.Lines(s) {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		var r [3]uint64
		for i := range f {
			r[i], _ = strconv.ParseUint(f[i], 10, 32)
		}
		if r == [3]uint64{0, 0, 1<<32 - 1} {
			continue // the initial namespace's: every uid is itself
		}
		m = append(m, uidRange{inside: r[0], outside: r[1], count: r[2]})
	}
	return m
}

// host is uid as the parent namespace knows it; unchanged where the map
// does not cover it.
func (m uidMap) host(uid uint32) uint32 {
	for _, r := range m {
		if u := uint64(uid); u >= r.inside && u-r.inside < r.count {
			return uint32(r.outside + u - r.inside)
		}
	}
	return uid
}
