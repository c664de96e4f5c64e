package liveness_test

import "syscall"

// groupAttr starts a child in a process group of its own when own is set.
func groupAttr(own bool) *syscall.SysProcAttr {
	if !own {
		return nil
	}
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup does nothing on Windows, which cannot signal a group: the
// tests kill the child itself at cleanup.
func killGroup(int) {}
