package bolt_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"

	"github.com/leasegate/leasegate/store/bolt"
)

// TestMain checks for leaked goroutines, and turns the test binary into the
// crash test's appending child when crashChildEnv is set.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		os.Exit(crashChild(path))
	}
	goleak.VerifyTestMain(m)
}

// testWriter routes log lines to t.Log.
type testWriter struct{ tb testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// testConfig is a durable configuration (sync on) logging to t.Log.
func testConfig(tb testing.TB) bolt.Config {
	cfg := bolt.DefaultConfig()
	cfg.Logger = hclog.New(&hclog.LoggerOptions{Name: "test", Output: testWriter{tb}, Level: hclog.Debug})
	return cfg
}

// mustOpen opens the ledger at path and closes it when the test ends.
func mustOpen(tb testing.TB, path string, cfg bolt.Config) *bolt.Ledger {
	tb.Helper()
	l, err := bolt.Open(path, cfg)
	if err != nil {
		tb.Fatalf("Open(%q) = %v", path, err)
	}
	tb.Cleanup(func() { l.Close() })
	return l
}

func tempLedgerPath(tb testing.TB) string {
	return filepath.Join(tb.TempDir(), "ledger.db")
}
