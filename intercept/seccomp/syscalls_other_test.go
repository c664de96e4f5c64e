//go:build !amd64

package seccomp_test

// legacyCases is empty: only amd64 has syscalls without *at here.
var legacyCases []syscallCase

// archPrograms is empty: the x32 check is amd64's.
var archPrograms = map[string]func([]string) int{}
