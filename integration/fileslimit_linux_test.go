package integration_test

import (
	"context"
	"encoding/json"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLowFilesLimitCapsConns: a coordinator started under an open-files
// limit of 64 (prlimit, hard and soft) holds at most 32 connections and 4
// of one process, and says so in its log and in doctor (under 32, with no
// room for the 8 it needs, it does not start); a process holding
// 80 connections leaves room for `status`, which answers at once. It
// accepted connections until accept failed with EMFILE, logging it in a
// loop, and status waited until the held connections timed out (10 s).
func TestLowFilesLimitCapsConns(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is not installed")
	}
	r := newCheckout(t, nil)
	// Bounded: a coordinator that started anyway would serve until killed.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, prlimit, "--nofile=32:32", "--", bin, "serve", "--workspace", r.dir, "--idle-exit", "0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "the open-files limit (32) leaves the coordinator room for 0 connections") {
		t.Fatalf("serve under a limit of 32: %v, %s; want a refusal naming the limit", err, out)
	}
	r.startServerCmd(exec.Command(prlimit, append([]string{"--nofile=64:64", "--", bin}, r.serveArgs(retryAfter, idleAfter)...)...))
	h, err := r.client.Health(context.Background())
	if err != nil || h.MaxConns != 32 || h.FilesLimit != 64 {
		t.Fatalf("health under a limit of 64 = %+v, %v; want max_conns 32, files_limit 64", h, err)
	}
	sock := filepath.Join(r.dir, ".git", "leasegate", "coord.sock")
	for range 80 {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	start := time.Now()
	if _, errs, code := r.lg("status"); code != 0 {
		t.Fatalf("status while one process holds 80 connections: exit %d: %s", code, errs)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("status while one process holds 80 connections took %s, want it answered at once", took)
	}
	doctorOut, _, _ := r.lg("doctor", "--json")
	var doc struct{ Coordinator struct{ Connections string } }
	if err := json.Unmarshal([]byte(doctorOut), &doc); err != nil || !strings.Contains(doc.Coordinator.Connections, "at most 32 connections") {
		t.Errorf("doctor --json coordinator.connections = %q (%v), want it to say at most 32 connections\n%s", doc.Coordinator.Connections, err, doctorOut)
	}
	r.stopServer()
	log := r.log.String()
	if strings.Contains(log, "too many open files") || !strings.Contains(log, "files-limit=64 max-conns=32") {
		t.Errorf("coordinator log: want no EMFILE and the lowered cap said:\n%s", log)
	}
}

// TestLowFilesLimitSharesPidfds: under an open-files limit of 132 the
// coordinator holds 99 connections and one pidfd (what they and its own
// 32 files leave): the first worker is judged by its pidfd, the second by
// its pid and start time, its evidence naming the share and the limit.
// Every owner held a pidfd whatever the limit: eighty workers under 256
// took the descriptors /proc reads needed, and writes were held.
func TestLowFilesLimitSharesPidfds(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is not installed")
	}
	r := newCheckout(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	r.startServerCmd(exec.Command(prlimit, append([]string{"--nofile=132:132", "--", bin}, r.serveArgs(retryAfter, idleAfter)...)...))
	r.worker("w1", "echo x >> a.txt; sleep 60")
	eventually(t, 15*time.Second, "w1 to lease a.txt", func() bool { return r.holders()["a.txt"] == "w1" })
	r.worker("w2", "echo x >> b.txt; sleep 60")
	eventually(t, 15*time.Second, "w2 to lease b.txt", func() bool { return r.holders()["b.txt"] == "w2" })
	evidence := func(name string) string {
		o, _ := r.ownerView(name)
		return string(o.Liveness.Status) + ": " + strings.Join(o.Liveness.Evidence, "; ")
	}
	if e := evidence("w1"); !strings.HasPrefix(e, "alive: pidfd: pid ") {
		t.Errorf("w1's liveness = %q, want alive by its pidfd", e)
	}
	want := "alive: pid + start time (no pidfd: the coordinator holds its share of 1 pidfds under the open-files limit 132): pid "
	if e := evidence("w2"); !strings.HasPrefix(e, want) {
		t.Errorf("w2's liveness = %q, want %q...", e, want)
	}
	r.stopServer()
	if log := r.log.String(); !strings.Contains(log, "files-limit=132 max-conns=99 max-pidfds=1") {
		t.Errorf("coordinator log: want the pidfds' share said:\n%s", log)
	}
}
