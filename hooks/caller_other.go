//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package hooks

// endWithParent does nothing here, where there is no parent-death signal
// or kqueue: a hook whose shell was killed waits until its own --timeout
// (on Windows no fail-closed line starts one).
func endWithParent(int) {}
