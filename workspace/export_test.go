package workspace

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
