package workspace

import "os"

// mountInfo is this process's mount table.
func mountInfo() ([]byte, error) { return os.ReadFile("/proc/self/mountinfo") }
