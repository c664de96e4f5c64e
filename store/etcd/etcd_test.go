package etcd_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/go-hclog"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

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

// etcdClient is a plain client of cfg's cluster, to look at the keys the
// ledger wrote; it is closed when the test ends.
func etcdClient(t *testing.T, cfg etcd.Config) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: cfg.Endpoints, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}
