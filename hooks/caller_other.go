//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package hooks

// endWithParent does nothing here: no parent-death signal, and no
// fail-closed line starts a hook (Windows).
func endWithParent(int) {}
