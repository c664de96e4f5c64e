package sidecar

import (
	"sync"

	"github.com/benbjohnson/clock"

	"github.com/leasegate/leasegate/gate"
)

// held remembers the leases this worker was granted, so that a mutation
// fully covered by them (an editor saving the same file again, a checkout
// filling a directory the worker created) is answered without a round trip
// to the coordinator. A check-out is not remembered: a write under it adds
// no auto lease, so the coordinator learns that a gate saw the write only
// when it is asked, and would otherwise report the worker's own write in
// its check-out as ungated.
//
// The cache is only ever a subset of the truth: it is cleared whenever the
// event stream reports anything that can end one of the worker's leases
// (a release, expiry, eviction or reclaim, a stop that opens the stop-idle
// window, a commit release), and when one of its new directories' leases
// is narrowed for another owner's new name, so a lease the coordinator has
// ended (or the part of it given up) is
// forgotten within the event stream's latency (milliseconds). Writes in
// that window are the trade-off for not paying a round trip per syscall;
// DESIGN.md discusses it. On a lease table shared with other machines the
// cache answers only while its coordinator has been heard from recently
// enough (fence).
type held struct {
	mu    sync.Mutex
	files map[string]bool // exact paths
	globs []string        // patterns, e.g. a created directory's "dir/**"
	clk   clock.Clock     // reads now for the fence
	fence fence
}

// newHeld returns an empty cache, untrusted until a heartbeat is answered
// (hear), timed on clk.
func newHeld(clk clock.Clock) *held { return &held{files: make(map[string]bool), clk: clk} }

// add records the scopes of granted leases of owner.
func (h *held) add(owner string, ls []gate.Lease) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range ls {
		if !l.HeldBy(owner) || l.State != gate.StateActive || l.Kind == gate.KindCheckout || l.Scope.Type == gate.ScopeFull {
			continue
		}
		for _, p := range l.Scope.Paths {
			if gate.IsGlob(p) {
				h.globs = append(h.globs, p)
			} else {
				h.files[p] = true
			}
		}
	}
}

// covers reports whether every path is covered by a remembered lease and
// the cache may answer now (fence).
func (h *held) covers(paths []string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range paths {
		if !h.files[p] && !h.matchGlob(p) {
			return false
		}
	}
	return h.trustedLocked()
}

func (h *held) matchGlob(p string) bool {
	for _, g := range h.globs {
		if gate.Match(g, p) {
			return true
		}
	}
	return false
}

// forget drops every remembered lease.
func (h *held) forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.forgetLocked()
}

func (h *held) forgetLocked() {
	clear(h.files)
	h.globs = h.globs[:0]
}
