package etcd_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/etcd"
	"github.com/leasegate/leasegate/store/storetest"
)

// workspaces numbers the workspace names tests use, so every test gets an
// empty ledger on the shared server.
var workspaces atomic.Int64

type testWriter struct{ tb testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// testConfig names a fresh workspace on the test cluster.
func testConfig(t *testing.T) etcd.Config {
	c := requireEtcd(t)
	return etcd.Config{
		Endpoints: c.Endpoints,
		Workspace: fmt.Sprintf("test-%d", workspaces.Add(1)),
		Logger:    hclog.New(&hclog.LoggerOptions{Name: "test", Output: testWriter{t}, Level: hclog.Debug}),
	}
}

func mustOpen(t *testing.T, cfg etcd.Config) *etcd.Ledger {
	t.Helper()
	l, err := etcd.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open(%v, %q) = %v", cfg.Endpoints, cfg.Workspace, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestLedgerConformance runs the store suite against a real etcd server.
func TestLedgerConformance(t *testing.T) {
	storetest.RunLedgerTests(t, func(t *testing.T) (store.Ledger, func() store.Ledger) {
		cfg := testConfig(t)
		return mustOpen(t, cfg), func() store.Ledger { return mustOpen(t, cfg) }
	})
}
