//go:build linux

package seccomp_test

// legacyCases is empty: arm64 has only the *at syscalls.
var legacyCases []syscallCase

// archPrograms is empty: the x32 check is amd64's.
var archPrograms = map[string]func([]string) int{}
