package integration_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestClusterEventsFollowOutage: `events --follow` on a coordinator whose
// one etcd member stops past the session's TTL says that etcd cannot be
// reached and writes wait (it said the coordinator went away, and exited,
// though the coordinator answered all along), and once etcd is back it
// goes on with the events committed then.
func TestClusterEventsFollowOutage(t *testing.T) {
	etcd := startEtcd(t, 1)
	cfg := fmt.Sprintf(`{"cluster": {"endpoints": [%q], "workspace": "outage", "session_ttl": "2s"}}`, etcd.Endpoints[0])
	r := newCheckout(t, map[string]string{"leasegate.json": cfg, "f.txt": "f\n", "g.txt": "g\n"})
	r.startServer(retryAfter, idleAfter)
	ev := r.start("events", "--follow", "--text")
	r.mustLG("acquire", "--as", "alice", "f.txt")
	eventually(t, 30*time.Second, "the grant of f.txt followed", func() bool { return strings.Contains(ev.out.String(), "f.txt") })
	etcd.StopMember(0)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("events --follow:\n%s", ev.out)
		}
	})
	eventually(t, 30*time.Second, "events --follow saying etcd is unreachable", func() bool {
		out := ev.out.String()
		return strings.Contains(out, "etcd at") && strings.Contains(out, "unreachable") && strings.Contains(out, "writes are held")
	})
	select {
	case <-ev.done:
		t.Fatalf("events --follow ended (exit %d) while its coordinator answered:\n%s", ev.code, ev.out)
	default:
	}
	if err := etcd.RestartMember(0); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the coordinator serving again", func() bool {
		_, _, code := r.lg("acquire", "--as", "bob", "g.txt")
		return code == 0
	})
	eventually(t, 30*time.Second, "the grant of g.txt followed after etcd came back", func() bool { return strings.Contains(ev.out.String(), "g.txt") })
	if out := ev.out.String(); strings.Contains(out, "went away") || strings.Contains(out, "did not answer") {
		t.Errorf("events --follow blames the coordinator for etcd's outage:\n%s", out)
	}
}
