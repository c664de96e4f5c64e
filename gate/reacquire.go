package gate

import (
	"errors"
	"slices"
)

// AlreadyHeld reports whether err refused owner's acquire of scope only
// because owner already holds a check-out of exactly that scope (the same
// type and the same set of paths, compared under f, with the pairs the
// workspace's rules add to them, as the coordinator added them to the
// lease), and returns that lease. Acquiring such a check-out again is not
// an error and leaves the lease as it is; any other overlap, or a lease of
// another owner or kind, is still a refusal. Where the volume folds case,
// "Docs/**" held and "docs/**" asked are one scope: the table refused the
// second as overlapping the first.
func (f Folding) AlreadyHeld(err error, owner string, scope Scope, pairs []PairRule) (Lease, bool) {
	var de *DeniedError
	if !errors.As(err, &de) || de.Reason != ReasonScopeOverlap || de.Holder == nil {
		return Lease{}, false
	}
	h := *de.Holder
	if !h.HeldBy(owner) || h.Kind != KindCheckout || h.Scope.Type != scope.Type ||
		!f.samePaths(h.Scope.Paths, f.ExpandPairs(scope.Paths, pairs)) {
		return Lease{}, false
	}
	return h, true
}

// samePaths reports whether a and b hold the same paths under f, in any
// order and with any repetition.
func (f Folding) samePaths(a, b []string) bool {
	return slices.Equal(f.keySet(a), f.keySet(b))
}

// keySet is the sorted set of the keys of paths under f.
func (f Folding) keySet(paths []string) []string {
	keys := make([]string, len(paths))
	for i, p := range paths {
		keys[i] = f.folded(p)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
