package mcp_test

import (
	"fmt"
	"testing"
)

// BenchmarkCheck is one leases_check of 10 paths, two of them held by
// another owner, through the SDK's in-memory transport to a coordinator
// on a unix socket: the server's own cost, without stdio.
func BenchmarkCheck(b *testing.B) {
	w := newWorld(b)
	w.register(b, "bob")
	w.acquire(b, "bob", "p3.go", "p7.go")
	cs := w.session(b, "alice", nil)
	var paths []string
	for i := range 10 {
		paths = append(paths, fmt.Sprintf("p%d.go", i))
	}
	args := map[string]any{"paths": paths}
	for b.Loop() {
		mustCall(b, cs, "leases_check", args, nil)
	}
}
