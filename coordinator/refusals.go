package coordinator

import "sync"

// refusals remembers which kinds of record the ledger refused last time,
// so that each kind is logged at error level once in a row: the liveness
// loop, the sweep and the workspace watcher try again and again while a
// ledger on a full disk refuses writes, and their log lines must not eat
// the space the ledger needs to recover. A kind is forgotten when its
// record succeeds again or the ledger recovers, so the next refusal is
// logged again. Its own lock lets callers with or without c.mu log.
type refusals struct {
	mu   sync.Mutex
	seen map[string]bool
}

// first reports whether key was not refused last time, and marks it
// refused.
func (r *refusals) first(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[key] {
		return false
	}
	if r.seen == nil {
		r.seen = make(map[string]bool)
	}
	r.seen[key] = true
	return true
}

// done forgets key's refusal: its record succeeded.
func (r *refusals) done(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.seen, key)
}

// reset forgets every refusal: the ledger takes writes again.
func (r *refusals) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = nil
}

// refused logs a record the ledger refused, at error level only the first
// time in a row for key and at debug level after that; msg says what was
// not recorded.
func (c *Coordinator) refused(key, msg string, err error, kv ...any) {
	kv = append(kv, "error", err)
	if !c.refusals.first(key) {
		c.log.Debug(msg+" again", kv...)
		return
	}
	c.log.Error(msg+"; logged again at debug level until it succeeds or the ledger recovers", kv...)
}
