//go:build !windows

package hooks

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own and makes the end of
// its context kill that whole group: a command doctor tries that does not
// answer in time goes with everything it started (a shell's children
// were left running).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
