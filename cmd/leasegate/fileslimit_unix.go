//go:build !windows

package main

import "golang.org/x/sys/unix"

// filesLimit is the process's open-files limit (RLIMIT_NOFILE, soft),
// 0 when it cannot be read or is unlimited.
func filesLimit() uint64 {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil || lim.Cur == unix.RLIM_INFINITY {
		return 0
	}
	return uint64(lim.Cur)
}
