package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// TestCrowdOnOneCheckout is the many-agents trial, reduced: eight workers
// (under each gate this machine has) edit shared files with sed -i, write
// files of their own and commit them at once on one checkout, beside a
// check-out, an agent seen through its hooks, a holder killed with its
// sidecar while another worker waits for its file, and a worker stopped
// with kill -STOP; an operator retries each blocker whose file was freed
// and denies the others. Afterwards the ledger never had two holders of one
// path, every blocker named the lease that held its file, the killed
// holder's file went to its waiter within a second, the stopped one's and
// the agent's were released at their stop-idle, commits released what they
// committed, every worker ended, and the coordinator kept no goroutine or
// descriptor per worker.
func TestCrowdOnOneCheckout(t *testing.T) {
	files := map[string]string{"own/.keep": "k\n"}
	for i := range 4 {
		files[fmt.Sprintf("shared/s%d.txt", i)] = "s\n"
	}
	for d := range 3 {
		for f := range 10 {
			files[fmt.Sprintf("corpus/d%d/f%d.txt", d, f)] = "c\n"
		}
	}
	r := newRepo(t, files)
	r.mustLG("install", "git")
	base := coordinatorLoad(t, r)
	ctx, stopOperator := context.WithCancel(context.Background())
	operated := make(chan struct{})
	go func() { defer close(operated); operate(ctx, r) }()
	defer func() { stopOperator(); <-operated }()

	r.mustLG("acquire", "corpus/d2/**", "--as", "co", "--ttl", "1h")
	gs := gates(t)
	var crowd []*worker
	for k := range 8 {
		name := fmt.Sprintf("c%d", k)
		r.gate = gs[k%len(gs)]
		crowd = append(crowd, r.worker(name, crowdScript(name, k)))
	}
	r.gate = ""
	doomed := r.worker("doomed", "echo x >> corpus/d1/f9.txt && sleep 60")
	sleeper := r.worker("sleeper", "echo x >> corpus/d0/f9.txt && echo held && sleep 10")
	eventually(t, 10*time.Second, "the leases of doomed and sleeper", func() bool {
		h := r.holders()
		return h["corpus/d1/f9.txt"] == "doomed" && h["corpus/d0/f9.txt"] == "sleeper"
	})
	hookWrite(t, r, "agent", "corpus/d0/f8.txt")
	waiter := r.worker("waiter", "echo y >> corpus/d1/f9.txt")
	eventually(t, 10*time.Second, "waiter's contention", func() bool {
		return len(r.history("corpus/d1/f9.txt")) > 0 && hasEvent(r.history("corpus/d1/f9.txt"), gate.EventContention)
	})
	killed := time.Now()
	kill(doomed.cmd.Process.Pid)
	stopTree(t, sleeper.cmd.Process.Pid, syscall.SIGSTOP)
	stopped := time.Now()
	r.mustLG("release", "corpus/d2/**", "--as", "co")

	for _, w := range append(crowd, waiter) {
		if code := w.wait(t, 45*time.Second); code != 0 && !strings.Contains(w.out.String(), "finished") {
			t.Errorf("worker exit %d before its end; output:\n%s", code, w.out)
		}
	}
	stopTree(t, sleeper.cmd.Process.Pid, syscall.SIGCONT)
	sleeper.wait(t, 20*time.Second)
	evs := allEvents(t, r)
	checkOneHolder(t, evs)
	checkBlockersNamedTheirHolder(t, evs)
	if d := grantedAfter(evs, "waiter", "corpus/d1/f9.txt", killed); d < 0 || d > time.Second {
		t.Errorf("waiter granted the killed holder's file %v after the kill, want within 1s", d)
	}
	if d := releasedAfter(evs, "sleeper", stopped); d < 0 || d > idleAfter+2*time.Second {
		t.Errorf("the stopped sleeper's lease released %v after its stop, want within its stop-idle (%v) and 2s", d, idleAfter)
	}
	if d := releasedAfter(evs, "agent", time.Time{}); d < 0 {
		t.Error("the agent's lease was not released after its Stop hook")
	}
	for _, e := range evs {
		if e.Type == gate.EventContention && strings.HasPrefix(e.Path, "own/") {
			t.Errorf("a worker waited for another's directory: %s of %s (event %d)", e.Type, e.Path, e.Seq)
		}
	}
	t.Logf("%d events: %v", len(evs), countTypes(evs))
	if n := countReleases(evs, "committed in "); n == 0 {
		t.Error("no release on commit in the ledger")
	}
	eventually(t, 15*time.Second, "the coordinator's load back to where it was", func() bool {
		now := coordinatorLoad(t, r)
		return now.goroutines <= base.goroutines+10 && now.fds <= base.fds+5
	})
}

// crowdScript is what crowd worker k does: six rounds of sed -i on a shared
// file, a file of its own, sed -i on a file of the corpus, and a commit of
// what it changed, retried while git's index is locked by another worker.
func crowdScript(name string, k int) string {
	return fmt.Sprintf(`n=%[1]s; k=%[2]d; mkdir -p own/$n
for i in 1 2 3 4 5 6; do
  s=shared/s$(( (i + k) %% 4 )).txt; c=corpus/d$(( k %% 3 ))/f$i.txt
  sed -i "1s/.*/$n $i/" $s; echo "$n $i" > own/$n/f$i.txt; sed -i "s/\$/ $n/" $c
  for a in 1 2 3 4 5 6 7 8 9 10; do git add own/$n $s $c 2>/dev/null && git commit -qm "$n $i" -- own/$n $s $c >/dev/null 2>&1 && break; sleep 0.2; done
done; echo finished`, name, k)
}

// operate is the operator while the crowd runs: a blocker whose file is
// free is retried, one still held after 2 s is denied.
func operate(ctx context.Context, r *repo) {
	for ctx.Err() == nil {
		bs, _ := r.client.Blockers(ctx, false)
		for _, b := range bs {
			switch {
			case !b.FreeSince.IsZero():
				_, _ = r.client.Resolve(ctx, b.ID, blocker.ActionRetry, "operator", "")
			case time.Since(b.RetriedAt) > 2*time.Second:
				_, _ = r.client.Resolve(ctx, b.ID, blocker.ActionDeny, "operator", "")
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// hookWrite is an agent's write of name through its PreToolUse hook,
// then its Stop hook.
func hookWrite(t *testing.T, r *repo, session, name string) {
	t.Helper()
	if out, errs, code := r.hook(toolWrite(session, r.dir, name), "--as", session); code != 0 || strings.Contains(out, "deny") {
		t.Fatalf("hook write of %s: exit %d\nstdout: %s\nstderr: %s", name, code, out, errs)
	}
	stop := `{"session_id":"` + session + `","cwd":"` + r.dir + `","hook_event_name":"Stop"}`
	if _, errs, code := r.hook(stop, "--as", session, "--idle-after", idleAfter.String()); code != 0 {
		t.Fatalf("stop hook: exit %d\n%s", code, errs)
	}
}

// stopTree sends sig to pid and every process below it.
func stopTree(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	_ = syscall.Kill(pid, sig)
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, f := range strings.Fields(string(b)) {
		if c, err := strconv.Atoi(f); err == nil {
			stopTree(t, c, sig)
		}
	}
}

// load is what the coordinator holds that could grow per worker.
type load struct{ goroutines, fds int }

func coordinatorLoad(t *testing.T, r *repo) load {
	t.Helper()
	st, err := r.client.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", r.server.Process.Pid))
	return load{st.Goroutines, len(fds)}
}

func allEvents(t *testing.T, r *repo) []gate.Event {
	t.Helper()
	var evs []gate.Event
	for _, line := range strings.Split(strings.TrimSpace(r.mustLG("events", "--json")), "\n") {
		var e gate.Event
		mustJSON(t, line, &e)
		evs = append(evs, e)
	}
	return evs
}

// checkOneHolder replays the ledger's lease events and fails when a grant
// overlaps an active lease of another owner.
func checkOneHolder(t *testing.T, evs []gate.Event) {
	t.Helper()
	active := map[gate.LeaseID]gate.Lease{}
	for _, e := range evs {
		switch {
		case e.Type == gate.EventGranted && e.Lease != nil:
			for _, l := range active {
				if l.Owner.Name != e.Lease.Owner.Name && scopesOverlap(l.Scope, e.Lease.Scope) {
					t.Errorf("event %d grants %v to %s while %s holds %v", e.Seq, e.Lease.Scope.Paths, e.Lease.Owner.Name, l.Owner.Name, l.Scope.Paths)
				}
			}
			active[e.Lease.ID] = *e.Lease
		case e.Type.EndsLease():
			delete(active, e.LeaseID)
		}
	}
}

func scopesOverlap(a, b gate.Scope) bool {
	for _, p := range a.Paths {
		for _, q := range b.Paths {
			if gate.ExactCase.Overlap(p, q) {
				return true
			}
		}
	}
	return false
}

// checkBlockersNamedTheirHolder fails when a blocker names a lease that was
// not active, or not its holder's, when it was opened.
func checkBlockersNamedTheirHolder(t *testing.T, evs []gate.Event) {
	t.Helper()
	active := map[gate.LeaseID]string{}
	for _, e := range evs {
		switch {
		case e.Type == gate.EventGranted && e.Lease != nil:
			active[e.Lease.ID] = e.Lease.Owner.Name
		case e.Type.EndsLease():
			delete(active, e.LeaseID)
		case e.Type == gate.EventBlockerOpened:
			var rep blocker.Report
			if err := json.Unmarshal(e.Data, &rep); err != nil {
				t.Fatalf("blocker.opened %d: %v", e.Seq, err)
			}
			if owner, ok := active[rep.Holder.LeaseID]; !ok || owner != rep.Holder.Owner.Name {
				t.Errorf("blocker %s of %s names lease %s of %s, which it was not (held by %q)", rep.ID, rep.Requester.Name, rep.Holder.LeaseID, rep.Holder.Owner.Name, owner)
			}
		}
	}
}

// grantedAfter is how long after since owner was granted path (-1: never).
func grantedAfter(evs []gate.Event, owner, path string, since time.Time) time.Duration {
	for _, e := range evs {
		if e.Type == gate.EventGranted && e.Lease != nil && e.Lease.Owner.Name == owner && e.At.After(since) && scopesOverlap(e.Lease.Scope, gate.Scope{Paths: []string{path}}) {
			return e.At.Sub(since)
		}
	}
	return -1
}

// releasedAfter is how long after since a lease of owner was first released
// (-1: never).
func releasedAfter(evs []gate.Event, owner string, since time.Time) time.Duration {
	owners := map[gate.LeaseID]string{}
	for _, e := range evs {
		if e.Type == gate.EventGranted && e.Lease != nil {
			owners[e.Lease.ID] = e.Lease.Owner.Name
		}
		if e.Type == gate.EventReleased && owners[e.LeaseID] == owner && e.At.After(since) {
			return e.At.Sub(since)
		}
	}
	return -1
}

func countTypes(evs []gate.Event) map[gate.EventType]int {
	n := map[gate.EventType]int{}
	for _, e := range evs {
		n[e.Type]++
	}
	return n
}

func countReleases(evs []gate.Event, reasonPrefix string) int {
	n := 0
	for _, e := range evs {
		if e.Type == gate.EventReleased && strings.HasPrefix(e.Reason, reasonPrefix) {
			n++
		}
	}
	return n
}

// TestResumedWorkerAsksAgain: kill -STOP of a whole job, its sidecar
// included, is a stop: the worker's leases go at its stop-idle window and
// another worker may take its file. Continued, its next write of that file
// waits for the new holder, also when the coordinator was restarted
// meanwhile: what the sidecar remembered holding before the freeze is not
// taken for granted after it.
func TestResumedWorkerAsksAgain(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	alice := r.worker("alice", "while :; do echo a >> a.txt; done")
	eventually(t, 5*time.Second, "alice's lease on a.txt", func() bool { return r.holders()["a.txt"] == "alice" })
	stopTree(t, alice.cmd.Process.Pid, syscall.SIGSTOP)
	eventually(t, idleAfter+5*time.Second, "alice's release at her stop-idle", func() bool { return r.holders()["a.txt"] == "" })
	r.killServer() // her sidecar's event stream ends while it is frozen
	r.startServer(retryAfter, idleAfter)
	r.worker("bob", "echo b1 >> a.txt && sleep 20")
	eventually(t, 5*time.Second, "bob's lease on a.txt", func() bool { return r.holders()["a.txt"] == "bob" })
	stopTree(t, alice.cmd.Process.Pid, syscall.SIGCONT)
	eventually(t, 5*time.Second, "alice's write after her freeze waiting for bob", func() bool { return hasEvent(r.history("a.txt"), gate.EventContention) })
	// One write may land: the shell's echo that had opened a.txt when the
	// stop came writes through that descriptor once continued, and a gate
	// sees opens, not writes through them. Every later echo opens again.
	if _, after, _ := strings.Cut(r.read("a.txt"), "b1\n"); strings.Count(after, "\n") > 1 {
		t.Fatalf("alice wrote a.txt %d times while bob held it", strings.Count(after, "\n"))
	}
}
