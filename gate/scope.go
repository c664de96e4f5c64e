package gate

import "slices"

// ScopeTypeOf is the scope type of a lease over paths when none is named:
// a file scope, unless one of the paths is a glob, which only a sparse
// scope holds. Auto leases and check-outs without a named scope take it.
func ScopeTypeOf(paths []string) ScopeType {
	if slices.ContainsFunc(paths, IsGlob) {
		return ScopeSparse
	}
	return ScopeFile
}
