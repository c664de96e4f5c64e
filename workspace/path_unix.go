//go:build !windows

package workspace

// native returns the path rules of Unix: "/" alone separates, and case counts.
// macOS's default file system ignores case too; a path spelt in another
// case than the root's is taken as outside there.
func native() pathRules { return pathRules{sep: '/'} }
