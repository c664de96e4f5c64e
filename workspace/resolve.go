package workspace

import "path/filepath"

// ResolveExisting follows the symlinks in the longest prefix of p that
// exists, p itself included, and keeps the missing rest as written (a
// file about to be created, a mkdir -p in progress). A path none of whose
// prefixes resolves is returned as it is.
func ResolveExisting(p string) string {
	prefix, rest := p, ""
	for {
		if real, err := filepath.EvalSymlinks(prefix); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(prefix)
		if parent == prefix {
			return p
		}
		rest = filepath.Join(filepath.Base(prefix), rest)
		prefix = parent
	}
}
