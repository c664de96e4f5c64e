package gate

import (
	"errors"
	"slices"
)

// AlreadyHeld reports whether err refused owner's acquire of scope only
// because owner already holds a check-out of exactly that scope (the same
// type and the same set of paths), and returns that lease. Acquiring such
// a check-out again is not an error and leaves the lease as it is; any
// other overlap, or a lease of another owner or kind, is still a refusal.
func AlreadyHeld(err error, owner string, scope Scope) (Lease, bool) {
	var de *DeniedError
	if !errors.As(err, &de) || de.Reason != ReasonScopeOverlap || de.Holder == nil {
		return Lease{}, false
	}
	h := *de.Holder
	if !h.HeldBy(owner) || h.Kind != KindCheckout || h.Scope.Type != scope.Type || !samePaths(h.Scope.Paths, scope.Paths) {
		return Lease{}, false
	}
	return h, true
}

// samePaths reports whether a and b hold the same paths, in any order and
// with any repetition.
func samePaths(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
