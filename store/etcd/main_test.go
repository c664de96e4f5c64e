package etcd_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/leasegate/leasegate/internal/etcdtest"
)

// cluster is the one-member etcd every test of the package shares (each
// under its own workspace name); nil with startErr set when it could not
// be started.
var (
	cluster  *etcdtest.Cluster
	startErr error
)

// TestMain starts a real etcd in a temporary directory for the package's
// tests, stops it at the end and checks for leaked goroutines.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "leasegate-etcd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	cluster, startErr = etcdtest.Start(dir, 1)
	code := m.Run()
	if cluster != nil {
		cluster.Stop()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}

// requireEtcd fails the test when etcd should be there and is not; it
// skips, saying why, only when etcd is not installed and CI did not ask
// for it.
func requireEtcd(t *testing.T) *etcdtest.Cluster {
	t.Helper()
	switch {
	case cluster != nil:
		return cluster
	case os.Getenv(etcdtest.Env) == "" && startErr == etcdtest.ErrNoEtcd:
		t.Skip(startErr)
	}
	t.Fatalf("start etcd: %v", startErr)
	return nil
}
