//go:build linux && (amd64 || arm64)

package seccomp

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// maxTgids bounds the tgid cache; when full it starts over.
const maxTgids = 4096

// tgidCache maps thread ids to process ids (thread group ids).
//
// notif.pid is a thread id, and the way to its process is the Tgid line of
// /proc/<tid>/status, which costs about 25 µs to generate: more than all
// the rest of a notification's reading. Most notifying threads are their
// process's main thread, whose tid is the tgid; that, and a remembered
// answer for other threads, is checked instead with tgkill(tgid, tid, 0),
// which succeeds only while that thread belongs to that process, so a
// recycled thread id is never given a stale process.
type tgidCache struct {
	mu sync.Mutex
	m  map[int]int
}

// lookup returns the process id of thread tid.
func (c *tgidCache) lookup(tid int) (int, error) {
	if belongs(tid, tid) {
		return tid, nil
	}
	c.mu.Lock()
	tgid, ok := c.m[tid]
	c.mu.Unlock()
	if ok && belongs(tid, tgid) {
		return tgid, nil
	}
	tgid, err := readTgid(tid)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxTgids {
		c.m = make(map[int]int)
	}
	c.m[tid] = tgid
	return tgid, nil
}

// belongs reports whether thread tid is part of process tgid right now.
// tgkill with signal 0 sends nothing: it looks the thread up in that
// process (ESRCH if it is not there) and then checks the permission to
// signal it, so EPERM also means that it belongs.
func belongs(tid, tgid int) bool {
	err := unix.Tgkill(tgid, tid, 0)
	return err == nil || err == unix.EPERM
}

// readTgid reads the Tgid line of /proc/<tid>/status.
func readTgid(tid int) (int, error) {
	path := "/proc/" + strconv.Itoa(tid) + "/status"
	status, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("no tgid in %s", path)
}
