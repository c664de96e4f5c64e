package coordinator

import (
	"os"

	"github.com/leasegate/leasegate"
)

// initialPidNS is the host's pid namespace as /proc/self/ns/pid names it
// (PROC_PID_INIT_INO).
const initialPidNS = "pid:[4026531836]"

// currentUIDMap is the coordinator's user namespace's uid_map; nil when
// it cannot be read.
func currentUIDMap() uidMap {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return nil
	}
	return parseUIDMap(string(b))
}

// CurrentPidNS names the calling process's pid namespace (the
// coordinator's, when it calls it).
func CurrentPidNS() leasegate.PidNS {
	id, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return leasegate.PidNS{ID: "unknown", Host: true}
	}
	ns := leasegate.PidNS{ID: id, Host: id == initialPidNS}
	if !ns.Host {
		ns.Note = "the coordinator runs in a private pid namespace: processes outside it cannot be seen, so their owners are judged by heartbeat alone, and it ends when the namespace does; start it where it sees every worker (on the host: leasegate serve --workspace DIR)"
	}
	return ns
}
