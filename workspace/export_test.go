package workspace

import "github.com/leasegate/leasegate/gate"

// Discover exposes discover to the tests.
var Discover = discover

// FindWithGit finds the workspace around dir the way Find does when
// discover is not sure: by asking git.
func FindWithGit(dir string) (*Workspace, error) {
	abs, err := resolveDir(dir)
	if err != nil {
		return nil, err
	}
	return discoverGit(abs)
}

// SetFolding makes r compare its globs under f, as on a volume that folds
// case when f is gate.FoldCase, and forgets its verdicts.
func (r *Rule) SetFolding(f gate.Folding) {
	r.fold = f
	r.cache = newVerdictCache()
}
