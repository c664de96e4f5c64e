package workspace

// native returns the path rules of Windows: "\" separates and "/" does too,
// case does not count (NTFS's default), and a path may start with a drive
// or a UNC share.
func native() pathRules { return pathRules{sep: '\\', alt: '/', fold: true, volumes: true} }
