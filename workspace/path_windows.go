package workspace

// native returns the path rules of Windows: "\" separates and "/" does too,
// case does not count (NTFS's default), a path may start with a drive or
// a UNC share, and ".." is taken away before any symlink is followed.
func native() pathRules {
	return pathRules{sep: '\\', alt: '/', fold: true, volumes: true, lexicalDotDot: true}
}

// adoptVolume has nothing to ask on Windows: NTFS folds case on every
// volume by default, and filepath.EvalSymlinks has already spelt the
// workspace's directories as on disk.
func adoptVolume(*Workspace) {}
