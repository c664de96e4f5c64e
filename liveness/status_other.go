//go:build !windows

package liveness

import "github.com/shirou/gopsutil/v3/process"

// processStatus is p's scheduler state as gopsutil reads it: /proc on
// Linux, sysctl on the BSDs, `ps -o state` on macOS (one process start
// per reading there).
func processStatus(p *process.Process) ([]string, error) { return p.Status() }
