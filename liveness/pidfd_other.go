//go:build !linux

package liveness

import "os"

// openPidfd: no pidfds here; owners are judged by pid and start time.
func openPidfd(int) (*os.File, error) { return nil, nil }

func pidfdReadable(uintptr) bool { return false }
