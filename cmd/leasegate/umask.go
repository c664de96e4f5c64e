//go:build !windows

package main

import "syscall"

// umask sets the process's file mode creation mask to m and returns the
// previous one.
func umask(m int) int { return syscall.Umask(m) }
