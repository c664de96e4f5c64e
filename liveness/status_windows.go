package liveness

import "github.com/shirou/gopsutil/v3/process"

// processStatus is Running for a process that exists: Windows has no
// stopped state a job can be put in (gopsutil does not implement Status
// there), so a Windows owner is never judged stopped-idle.
func processStatus(p *process.Process) ([]string, error) {
	if _, err := p.CreateTime(); err != nil {
		return []string{""}, err
	}
	return []string{process.Running}, nil
}
