//go:build !windows

package fileperm

import "io/fs"

// Exposed reports whether fi's mode grants its group or others any access.
func Exposed(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o077 != 0 }
