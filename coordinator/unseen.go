package coordinator

import (
	"fmt"
	"slices"

	"github.com/leasegate/leasegate/gate"
)

// unseenCaller is a caller the kernel gave no pid for: a process outside
// the coordinator's pid namespace (a coordinator started inside a
// worker's private pid namespace, which status and its starter say). Its
// ancestry cannot be read, so it is no operator, but it may register a
// name no one has used and act as the owners registered from outside the
// namespace, which are judged by heartbeat; never as an owner whose
// process the coordinator sees. Call with c.mu held.
func (c *Coordinator) unseenCaller(p gate.Peer) caller {
	cl := caller{peer: p, unseen: true, nsRoot: c.cfg.Workspace, nsEnter: NSEnter("PID", c.uids != nil), unknown: fmt.Errorf(
		"the connecting process is outside the coordinator's pid namespace %s (SO_PEERCRED pid 0): it acts only as owners registered from outside it", c.pidNS.ID)}
	for name, o := range c.owners {
		if !o.gone && o.unseen != "" {
			cl.owners = append(cl.owners, name)
		}
	}
	slices.Sort(cl.owners)
	return cl
}

// NSEnter is the nsenter command that enters, from the host, the pid and
// mount namespaces of the coordinator whose pid there is target, as the
// coordinator's user; ownUserNS says the coordinator runs in a user
// namespace of its own (a rootless container: `unshare -Urp`). There the
// user enters that one and keeps its credentials (nsenter's setgroups is
// refused there); --all would also enter the cgroup and other namespaces
// the container shares with the host, which only root may enter.
func NSEnter(target string, ownUserNS bool) string {
	if ownUserNS {
		return "nsenter --target " + target + " --user --pid --mount --preserve-credentials"
	}
	return "nsenter --target " + target + " --all"
}
