//go:build !linux && !windows

package unixsock

// reach calls use with path when it fits, else with a short name of it
// through a symlink to its directory (reachByLink).
func reach(path string, use func(addr string) error) error {
	if fits(path) {
		return use(path)
	}
	return reachByLink(linkRoot(), path, use)
}
