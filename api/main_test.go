package api_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines, and turns the test binary into
// BenchmarkCoordinatorPairsChild's client process when benchChildEnv is
// set.
func TestMain(m *testing.M) {
	if arg := os.Getenv(benchChildEnv); arg != "" {
		os.Exit(benchChild(arg))
	}
	goleak.VerifyTestMain(m)
}
