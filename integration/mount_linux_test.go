package integration_test

import "syscall"

// detachMount unmounts the file system a test mounted at mnt, lazily so
// that a process still using it does not keep it.
func detachMount(mnt string) { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) }
