//go:build !(linux && (amd64 || arm64)) || leasegate_noseccomp

package main

import "runtime"

// runGate refuses `run`: this platform has no seccomp gate. The
// leasegate_noseccomp build tag gives a Linux binary this behaviour so
// that the refusal is tested where the tests run.
func runGate() error { return refuseRun(runtime.GOOS + "/" + runtime.GOARCH) }
