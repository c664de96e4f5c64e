package console

import (
	"sync"
	"time"
)

// stateEvery is the least time between two "state" events of one page.
// Each is a status call to the coordinator and the whole status without
// its leases to the page (50 KB with 30 owners), and a crowd of workers
// makes tens of non-lease events a second: one state per event cost each
// open page 7 to 39 status calls and ~470 KB a second in a trial of 30
// workers. A burst now sends a state at once and one at most stateEvery
// after it, with everything the burst changed; a quarter of a second is
// not a delay an operator reading the page notices.
const stateEvery = 250 * time.Millisecond

// stateSender sends a page's states, coalesced: changed asks for one; it
// is sent at once when none was sent for stateEvery, else by a timer at
// the end of that time, once for every change asked meanwhile. close
// stops the timer and waits for a send it started, so nothing is written
// to the page after its handler returns.
type stateSender struct {
	send func() error

	mu     sync.Mutex
	last   time.Time   // when the last state was sent
	timer  *time.Timer // armed while a state is due
	closed bool
	err    error // the timer's failed send, returned by the next changed
}

// changed asks for a state after a non-lease event.
func (st *stateSender) changed() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err != nil || st.timer != nil {
		return st.err
	}
	if wait := stateEvery - time.Since(st.last); wait > 0 {
		st.timer = time.AfterFunc(wait, st.fire)
		return nil
	}
	st.last = time.Now()
	return st.send()
}

// fire sends the state that is due.
func (st *stateSender) fire() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.timer = nil
	if st.closed {
		return
	}
	st.last = time.Now()
	st.err = st.send()
}

// close ends the sender: no state is sent after it returns.
func (st *stateSender) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.closed = true
	if st.timer != nil {
		st.timer.Stop()
		st.timer = nil
	}
}
