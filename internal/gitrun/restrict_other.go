//go:build !linux

package gitrun

import "os/exec"

// startRestricted starts git as is: the neutralized settings are the only
// protection where Landlock does not exist.
func startRestricted(cmd *exec.Cmd) error { return cmd.Start() }
