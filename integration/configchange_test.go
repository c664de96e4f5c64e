package integration_test

import (
	"strings"
	"testing"
	"time"
)

// TestClusterAddedWhileServing: a "cluster" added to leasegate.json while
// the clone's coordinator serves its own ledger stops that coordinator
// within seconds, saying why, so that the next command serves the shared
// table: carol's check-out is refused naming bob, who holds the file on
// the cluster, not alice, who held it in the clone's own ledger. Before,
// the coordinator kept serving its file and two owners held one file.
func TestClusterAddedWhileServing(t *testing.T) {
	etcd := startEtcd(t, 1)
	cfg := clusterConfig(etcd, "added")
	a := newRepo(t, map[string]string{"a.txt": "a\n"})
	b := cloneCheckout(t, a)
	b.write("leasegate.json", cfg)
	a.mustLG("acquire", "a.txt", "--as", "alice")
	b.mustLG("acquire", "a.txt", "--as", "bob")
	t.Cleanup(func() { b.lg("serve", "--stop", "--force") })

	a.write("leasegate.json", cfg)
	serverExits(t, a, 15*time.Second, "leasegate.json named a cluster")
	if log := a.log.String(); !strings.Contains(log, `now names workspace`) {
		t.Errorf("the coordinator's log does not say why it stopped:\n%s", log)
	}
	t.Cleanup(func() { a.lg("serve", "--stop", "--force") })
	out, errs, code := a.lg("acquire", "a.txt", "--as", "carol")
	if code != 3 || !strings.Contains(errs, "held by bob") {
		t.Fatalf("carol's acquire after the change: exit %d, want 3 naming bob (the cluster's holder)\nstdout: %s\nstderr: %s", code, out, errs)
	}
}
