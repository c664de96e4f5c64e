package sidecar

import (
	"os"
	"syscall"
)

// Windows has no seccomp gate, so `run` is refused before a sidecar
// starts a worker there; these exist so that the package builds, and do
// nothing: Windows has no process groups to stop or continue.

func terminateGroup(int) {}

func stopGroup(int) {}

func continueGroup(int) {}

func processGone(int) bool { return false }

// signalName is sig's name as the syscall package has it.
func signalName(sig syscall.Signal) string { return sig.String() }

// isDir reports whether p is a directory, not following a final link.
func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}

// linkedFile reports no second name here: the sidecar does not run on
// Windows (run is refused there).
func linkedFile(string) (dev, ino uint64, ok bool) { return 0, 0, false }
