package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// TestClusterRestoreUnderWorker: etcd is restored, under a running worker,
// from a backup taken while alice held build/back (which git ignores: a
// lease keeps such a path gated) and before she took build/gone and bob
// wrote mine.txt. Bob's sidecar follows the table as etcd now holds it:
// his write of build/back waits for alice (it passed ungated: his mirror
// of every owner's leases kept the table from before the restore), his
// write of build/gone passes ungated (the mirror kept alice's lease, gone
// with the restore, and gated it), and his write of mine.txt asks for it
// again (his own lease is gone too). events --follow says the ledger went
// back and follows on with the events after it.
func TestClusterRestoreUnderWorker(t *testing.T) {
	etcd := startEtcd(t, 1)
	cfg := fmt.Sprintf(`{"cluster": {"endpoints": [%q], "workspace": "restore", "session_ttl": "15s"}}`, etcd.Endpoints[0])
	r := newCheckout(t, map[string]string{"leasegate.json": cfg, "mine.txt": "m\n"})
	r.startServer(retryAfter, idleAfter)
	ev := r.start("events", "--follow", "--text")
	r.mustLG("acquire", "--as", "alice", "build/back")
	backup, err := etcd.BackupMember(0)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the coordinator serving after the backup", func() bool {
		_, _, code := r.lg("release", "build/back", "--as", "alice")
		return code == 0
	})
	r.mustLG("acquire", "--as", "alice", "build/gone")
	trigger := filepath.Join(t.TempDir(), "go-on")
	bob := r.worker("bob", fmt.Sprintf(`mkdir -p build; echo bob > mine.txt
while :; do echo bob > build/back; [ -e %q ] && break; sleep 0.1; done
echo bob again > mine.txt; echo bob > build/gone; sleep 600`, trigger))
	eventually(t, 30*time.Second, "bob holding mine.txt", func() bool { return r.holders()["mine.txt"] == "bob" })
	if err := etcd.RestoreMember(0, backup); err != nil {
		t.Fatal(err)
	}
	var h map[string]string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("holders last seen after the restore: %v\nbob: %s\nevents --follow: %s", h, bob.out, ev.out)
		}
	})
	eventually(t, 30*time.Second, "the coordinator serving the restored table", func() bool {
		h = r.holders()
		return h["build/back"] == "alice" && h["build/gone"] == "" && h["mine.txt"] == ""
	})
	eventually(t, 30*time.Second, "bob's write of build/back waiting for alice", func() bool {
		for _, c := range r.status().Contentions {
			if c.Requester == "bob" && slices.Contains(c.Paths, "build/back") {
				return true
			}
		}
		return false
	})
	if err := os.WriteFile(trigger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r.mustLG("release", "build/back", "--as", "alice")
	eventually(t, 30*time.Second, "bob's write of build/gone", func() bool {
		b, _ := os.ReadFile(filepath.Join(r.dir, "build/gone"))
		return string(b) == "bob\n"
	})
	eventually(t, 30*time.Second, "events --follow saying the ledger went back, then alice's release after it", func() bool {
		out := ev.out.String()
		i := strings.Index(out, "went back")
		return i >= 0 && strings.Contains(out[i:], "lease.released") && strings.Contains(out[i:], "build/back")
	})
	if h := r.holders(); h["build/gone"] != "" || h["mine.txt"] != "bob" {
		t.Errorf("holders after bob's writes = %v, want build/gone held by nobody (ungated) and mine.txt by bob (asked again)\nbob: %s", h, bob.out)
	}
}

// TestClusterResolveWhileRequestersCoordinatorIsDown: bob's write on
// machine-b is blocked by alice's file on machine-a, and machine-b's
// coordinator is killed. An operator resolves the blocker on machine-a
// meanwhile; once machine-b's coordinator is back, bob's held write is
// answered as the operator said (it found no held write there and asked
// again from the start: a deny or an abort was lost, and bob blocked
// again).
func TestClusterResolveWhileRequestersCoordinatorIsDown(t *testing.T) {
	for _, tc := range []struct {
		action   string
		wantCode int
		wantFile string
	}{
		{action: "--retry", wantCode: 0, wantFile: "bob\n"},
		{action: "--deny", wantCode: 1, wantFile: "f\n"},
		{action: "--abort", wantCode: 4, wantFile: "f\n"},
	} {
		t.Run(tc.action, func(t *testing.T) {
			etcd := startEtcd(t, 1)
			a := newCheckout(t, map[string]string{"leasegate.json": clusterConfig(etcd, "resolve"), "f.txt": "f\n"})
			b := cloneCheckout(t, a)
			a.host, b.host = "machine-a", "machine-b"
			a.startServer(retryAfter, idleAfter)
			b.startServer(retryAfter, idleAfter)
			a.mustLG("acquire", "--as", "alice", "f.txt")
			eventually(t, 30*time.Second, "machine-b sees alice holding f.txt", func() bool { return b.holders()["f.txt"] == "alice" })
			bob := b.startEnv([]string{"LEASEGATE_NO_START=1"}, "run", "--as", "bob", "--retry-after", "1s", "--", "sh", "-c", "echo bob > f.txt || exit 1")
			var id string
			eventually(t, 30*time.Second, "bob's write blocked on machine-b, its sidecar told", func() bool {
				if bs := b.openBlockers(); len(bs) == 1 {
					id = bs[0].ID
				}
				return id != "" && strings.Contains(bob.out.String(), "BLOCKED")
			})
			b.killServer()
			if tc.action == "--retry" {
				a.mustLG("release", "f.txt", "--as", "alice")
			}
			out, errs, code := a.lg("resolve", id, tc.action)
			t.Logf("resolve %s on machine-a while machine-b's coordinator is down: exit %d\n%s%s", tc.action, code, out, errs)
			b.startServer(retryAfter, idleAfter)
			if got := bob.wait(t, 60*time.Second); got != tc.wantCode {
				t.Errorf("bob's worker after resolve %s: exit %d, want %d\n%s", tc.action, got, tc.wantCode, bob.out)
			}
			if got := b.read("f.txt"); got != tc.wantFile {
				t.Errorf("f.txt on machine-b = %q, want %q", got, tc.wantFile)
			}
		})
	}
}
