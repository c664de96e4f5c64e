//go:build !windows && !darwin

package workspace

// native returns the path rules of Unix: "/" alone separates, and case counts.
func native() pathRules { return pathRules{sep: '/'} }

// adoptVolume has nothing to ask on Linux and the BSDs: their file systems
// tell names apart by case.
func adoptVolume(*Workspace) {}

// onDisk returns p: a name on a file system that folds no case is its bytes.
func onDisk(p string) string { return p }
