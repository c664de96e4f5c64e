//go:build !windows

package liveness_test

import "syscall"

// groupAttr starts a child in a process group of its own when own is set.
func groupAttr(own bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: own} }

// killGroup kills every process of the group pgid leads.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
