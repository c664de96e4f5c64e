//go:build !linux

package spawn

// ProcLimited returns err: workers are started under a gate on Linux
// alone, where a fork refused at the user's process limit is said.
func ProcLimited(err error) error { return err }

// CheckRunRoom returns nil: workers are started under a gate on Linux
// alone.
func CheckRunRoom() error { return nil }
