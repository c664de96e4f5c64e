package liveness

import (
	"errors"
	"fmt"
	"sync"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

// Descriptors is the share of the process's open-files limit
// (RLIMIT_NOFILE) that liveness may hold as pidfds, and the record of the
// first open that found the limit reached. Every pidfd is a descriptor
// held for as long as its owner is registered: past the limit, every open
// of the process fails (EMFILE), its connections and ledger included. An
// owner watched beyond the share is judged by its pid and create time,
// as on a kernel without pidfds. A nil *Descriptors holds pidfds without
// limit and records nothing. It is safe for concurrent use.
type Descriptors struct {
	max    int    // pidfds held at most; below zero, no limit
	limit  uint64 // the open-files limit, as the warning names it
	log    hclog.Logger
	mu     sync.Mutex
	held   int
	filled string // why the first open failed with EMFILE; empty before
}

// NewDescriptors holds at most pidfds pidfds (below zero: no limit) of a
// process whose open-files limit is filesLimit (0: none known), logging
// to log (nil: nowhere) the first open that fails for want of a
// descriptor.
func NewDescriptors(pidfds int, filesLimit uint64, log hclog.Logger) *Descriptors {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Descriptors{max: pidfds, limit: filesLimit, log: log.Named("liveness")}
}

// Watch is the package's Watch within d's share: once d holds its share,
// p is watched without a pidfd (judged by its pid and create time, the
// evidence naming the share), and its slot is given back at Close.
func (d *Descriptors) Watch(p ProcID, onExit func()) (*Watched, error) {
	if !d.take() {
		w := Unwatched(p)
		w.why = fmt.Sprintf("no pidfd: the coordinator holds its share of %d pidfds under the open-files limit %d", d.max, d.limit)
		return w, nil
	}
	w, err := Watch(p, onExit)
	d.Note(err)
	if err != nil || !w.HasPidfd() {
		d.give()
		return w, err
	}
	w.release = sync.OnceFunc(d.give)
	return w, nil
}

// Note records err when it is an open that failed for want of a
// descriptor (EMFILE), logging it the first time.
func (d *Descriptors) Note(err error) {
	if d == nil || !errors.Is(err, syscall.EMFILE) {
		return
	}
	d.mu.Lock()
	first := d.filled == ""
	if first {
		d.filled = fmt.Sprintf("the open-files limit (RLIMIT_NOFILE %s) was reached: %v; raise it (ulimit -n, or the container's nofile) and restart the coordinator",
			d.limitString(), err)
	}
	d.mu.Unlock()
	if first {
		d.log.Error("the open-files limit was reached: raise it (ulimit -n) and restart the coordinator",
			"files-limit", d.limitString(), "pidfds", d.max, "error", err)
	}
}

// Warning says that an open failed for want of a descriptor, naming the
// open-files limit; empty while none has (and on nil).
func (d *Descriptors) Warning() string {
	if d == nil {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.filled
}

func (d *Descriptors) limitString() string {
	if d.limit == 0 {
		return "unknown"
	}
	return fmt.Sprint(d.limit)
}

// take reserves a pidfd's slot, false once the share is held.
func (d *Descriptors) take() bool {
	if d == nil {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.max >= 0 && d.held >= d.max {
		return false
	}
	d.held++
	return true
}

func (d *Descriptors) give() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.held--
}
