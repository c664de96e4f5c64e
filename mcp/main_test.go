package mcp_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no goroutine of a server, its sessions or its
// coordinator client outlives the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
