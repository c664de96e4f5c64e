package workspace

// native are the path rules of Windows: "\" separates and "/" does too,
// and case does not count (NTFS's default).
var native = pathRules{sep: '\\', alt: '/', fold: true}
