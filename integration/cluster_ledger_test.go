package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/etcdtest"
	"github.com/leasegate/leasegate/store/etcd"
)

// TestClusterLedgerCheck: with a cluster in leasegate.json, `ledger check`
// reads the shared ledger on etcd, not a bbolt file in the clone (a
// damaged one lies there as a decoy), while the coordinator keeps serving;
// a record damaged in etcd makes it exit 1 naming the damage; `ledger
// recover` refuses (exit 2), saying the ledger is on etcd.
func TestClusterLedgerCheck(t *testing.T) {
	etcd := startEtcd(t, 1)
	a := newCheckout(t, map[string]string{"leasegate.json": clusterConfig(etcd, "check")})
	a.startServer(retryAfter, idleAfter)
	defer a.stopServer()
	a.mustLG("acquire", "--as", "alice", "one.txt")
	a.mustLG("acquire", "--as", "bob", "two.txt")
	decoy := filepath.Join(a.dir, ".git", "leasegate", "ledger.db")
	if err := os.WriteFile(decoy, []byte("not a bbolt file"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := a.mustLG("ledger", "check", "--json")
	var r struct {
		Store    string   `json:"store"`
		Readable uint64   `json:"readable_events"`
		Damage   []string `json:"damage"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Store != "etcd" || r.Readable < 2 || len(r.Damage) != 0 {
		t.Fatalf("ledger check --json = %s (%v); want store etcd, at least the two grants, no damage", out, err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: etcd.Endpoints, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Put(context.Background(), "/leasegate/check/ledger/e/00000000000000000001", "[{"); err != nil {
		t.Fatal(err)
	}
	out, errs, code := a.lg("ledger", "check")
	if code != 1 || !strings.Contains(out, "damage:") || !strings.Contains(out, `etcd workspace "check"`) {
		t.Fatalf("ledger check of a damaged shared ledger: exit %d\n%s%s\nwant 1 naming the etcd workspace and the damage", code, out, errs)
	}
	if _, errs, code := a.lg("ledger", "recover"); code != 2 || !strings.Contains(errs, "shared on the etcd workspace") {
		t.Fatalf("ledger recover on a shared ledger: exit %d, %q; want 2 saying it is on etcd", code, errs)
	}
	if b, err := os.ReadFile(decoy); err != nil || string(b) != "not a bbolt file" {
		t.Fatalf("the clone's ledger.db after check and recover = %q, %v; want it untouched", b, err)
	}
}

// tokensInEtcd reads every ledger record of the shared workspace name
// straight from etcd and returns the fencing token each grant must have
// there: its record's revision as etcd reports it, and its place among
// the record's grants.
func tokensInEtcd(t *testing.T, c *etcdtest.Cluster, name string) map[uint64]gate.LeaseID {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	resp, err := cli.Get(context.Background(), "/leasegate/"+name+"/ledger/e/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]gate.LeaseID{}
	for _, kv := range resp.Kvs {
		var evs []gate.Event
		mustJSON(t, string(kv.Value), &evs)
		place := 0
		for _, e := range evs {
			if e.Type == gate.EventGranted {
				out[etcd.FencingToken(kv.ModRevision, place)] = e.Lease.ID
				place++
			}
		}
	}
	return out
}

// describeTokens lists a few tokens of m for a failure message.
func describeTokens(m map[uint64]gate.LeaseID) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d grants", len(m))
	n := 0
	for tok, id := range m {
		if n++; n > 3 {
			break
		}
		fmt.Fprintf(&b, ", %d: %s", tok, id)
	}
	return b.String()
}
