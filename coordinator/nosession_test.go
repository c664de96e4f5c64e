package coordinator_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestStatusWarnsWithoutSession: while a coordinator on a shared ledger
// has no etcd session (its only etcd member stopped past the session's
// TTL), status and every check say so, with the cause, as they say a
// degraded ledger; the warning goes once the member is back and the table
// reloaded.
func TestStatusWarnsWithoutSession(t *testing.T) {
	cluster := startCluster(t)
	c, _ := sharedCoordinator(t, cluster.Endpoints, "host-a", goneTTL)
	warning := func() string {
		st, err := c.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.Check(context.Background(), []string{"a.go"})
		if err != nil {
			t.Fatal(err)
		}
		if v.Warning != st.LedgerWarning {
			t.Fatalf("check warns %q, status %q: want the same", v.Warning, st.LedgerWarning)
		}
		return st.LedgerWarning
	}
	if w := warning(); w != "" {
		t.Fatalf("status warns %q with etcd up", w)
	}
	cluster.StopMember(0)
	waitWarning(t, "with etcd stopped", warning, func(w string) bool {
		return strings.Contains(w, "no session on the shared lease table") && strings.Contains(w, "writes are held")
	})
	if err := cluster.RestartMember(0); err != nil {
		t.Fatal(err)
	}
	waitWarning(t, "with etcd back", warning, func(w string) bool { return w == "" })
}

// waitWarning polls warning for up to 30 s until ok says it is what is
// wanted when.
func waitWarning(t *testing.T, when string, warning func() string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for w := warning(); !ok(w); w = warning() {
		if time.Now().After(deadline) {
			t.Fatalf("status warns %q 30 s %s", w, when)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
