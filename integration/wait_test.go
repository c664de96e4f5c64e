package integration_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// longRetry is a writer's own retry window in the tests of the wait: long
// enough that a write granted well before it was not granted by its retry.
const longRetry = "60s"

// TestFreedFileWakesWaiter: a release, an eviction or a reclaim of the
// lease a held write waits for decides that write at once, recorded as
// woken by the lease's end; the retry 60 s later never runs.
func TestFreedFileWakesWaiter(t *testing.T) {
	ends := map[string]func(r *repo) func(){
		"released": func(r *repo) func() {
			r.mustLG("acquire", "--as", "holder", "a.txt")
			return func() { r.mustLG("release", "a.txt", "--as", "holder") }
		},
		"evicted": func(r *repo) func() {
			r.mustLG("acquire", "--as", "holder", "a.txt")
			return func() { r.mustLG("evict", "a.txt", "--reason", "test") }
		},
		"reclaimed": func(r *repo) func() {
			holder := r.worker("holder", "echo h >> a.txt; sleep 60")
			eventually(t, 10*time.Second, "holder to lease a.txt", func() bool { return r.holders()["a.txt"] == "holder" })
			return func() { _ = holder.cmd.Process.Kill() }
		},
	}
	for name, hold := range ends {
		t.Run(name, func(t *testing.T) {
			r := newRepo(t, map[string]string{"a.txt": "a\n"})
			end := hold(r)
			w := r.runWith("writer", "echo w >> a.txt", "--retry-after", longRetry)
			eventually(t, 10*time.Second, "the writer's contention", func() bool { return len(r.status().Contentions) == 1 })
			end()
			if code := w.wait(t, 30*time.Second); code != 0 {
				t.Fatalf("writer exit %d:\n%s", code, w.out)
			}
			if !strings.HasSuffix(r.read("a.txt"), "w\n") {
				t.Fatalf("the writer's write is missing: %q", r.read("a.txt"))
			}
			var ended, woken, granted *gate.Event
			for _, e := range r.history("a.txt") {
				switch {
				case ended == nil && (e.Type == gate.EventReleased || e.Type == gate.EventEvicted || e.Type == gate.EventReclaimed):
					ended = &e // the holder's; the writer's own comes at its exit
				case e.Type == gate.EventContentionWoken && e.Actor == "writer":
					woken = &e
				case e.Type == gate.EventGranted && e.Lease.Owner.Name == "writer":
					granted = &e
				case e.Type == gate.EventRetry || e.Type == gate.EventBlockerOpened:
					t.Fatalf("%s in the history: the write waited for its retry", e.Type)
				}
			}
			if ended == nil || woken == nil || granted == nil {
				t.Fatalf("history of a.txt lacks the end (%v), the wake (%v) or the grant (%v)", ended, woken, granted)
			}
			// By the ledger's own clock: the grant follows the end within a
			// second (slack for a loaded machine), not the 60 s retry.
			if gap := granted.At.Sub(ended.At); gap < -time.Second || gap > time.Second {
				t.Fatalf("granted %s after the lease ended, want at once", gap)
			}
			if woken.LeaseID != ended.LeaseID || woken.Reason != string(ended.Type) {
				t.Fatalf("woken by %s (%s), want the ended lease %s (%s)", woken.LeaseID, woken.Reason, ended.LeaseID, ended.Type)
			}
			if cs := r.status().Contentions; len(cs) != 0 && cs[0].Outcome == "contended" {
				t.Fatalf("status still shows the contention waiting: %+v", cs)
			}
		})
	}
}

// withdrawnOf returns the contention.withdrawn events of requester in the
// history of path.
func withdrawnOf(r *repo, path, requester string) []gate.Event {
	var out []gate.Event
	for _, e := range r.history(path) {
		if e.Type == gate.EventContentionGone && e.Actor == requester {
			out = append(out, e)
		}
	}
	return out
}

// TestHookGoneWithdrawsContention: a hook that stops waiting — its own
// --timeout shorter than the retry, or killed with SIGKILL while it waits —
// withdraws its contention (recorded), so no retry runs and no blocker
// opens later for a write nobody is making.
func TestHookGoneWithdrawsContention(t *testing.T) {
	r := newCheckout(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	r.dial()

	_, errs, code := r.hook(toolWrite("s1", r.dir, "a.txt"), "--retry-after", longRetry, "--timeout", "2s")
	if code == 0 {
		t.Fatalf("the hook allowed a write of a held file: %s", errs)
	}
	eventually(t, 10*time.Second, "the timed-out hook's withdrawal", func() bool { return len(withdrawnOf(r, "a.txt", "cc-s1")) == 1 })
	if why := withdrawnOf(r, "a.txt", "cc-s1")[0].Reason; !strings.Contains(why, "deadline") {
		t.Fatalf("withdrawn because %q, want the hook's deadline", why)
	}

	hook := r.startStdin(toolWrite("s2", r.dir, "a.txt"), "hook", "claude-code", "--retry-after", longRetry, "--timeout", "120s")
	eventually(t, 10*time.Second, "the second hook's contention", func() bool {
		for _, c := range r.status().Contentions {
			if c.Requester == "cc-s2" && c.Outcome == leasegate.Contended {
				return true
			}
		}
		return false
	})
	_ = hook.cmd.Process.Kill()
	eventually(t, 10*time.Second, "the killed hook's withdrawal", func() bool { return len(withdrawnOf(r, "a.txt", "cc-s2")) == 1 })
	for _, c := range r.status().Contentions {
		if c.Outcome == leasegate.Contended {
			t.Fatalf("a contention still waits for a hook that is gone: %+v", c)
		}
	}
}

// startStdin starts the CLI with args in the background, stdin given.
func (r *repo) startStdin(stdin string, args ...string) *worker {
	r.t.Helper()
	w := &worker{out: &syncBuffer{}, done: make(chan struct{})}
	w.cmd = exec.Command(bin, args...)
	w.cmd.Dir, w.cmd.Env, w.cmd.Stdin = r.dir, slices.Clone(r.env), strings.NewReader(stdin)
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	if err := w.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	go func() {
		_ = w.cmd.Wait()
		w.code = w.cmd.ProcessState.ExitCode()
		close(w.done)
	}()
	r.t.Cleanup(func() {
		_ = w.cmd.Process.Kill()
		<-w.done
	})
	return w
}

// TestSessionHaltConsistent: while a hook session has an open blocker,
// its prompts and its writes (to free files too) are refused alike, from
// the coordinator's blockers even when the hooks' own memory of the session
// is gone (a hook killed before it could note the blocker, an agent under
// `leasegate run` whose hooks may not write the state directory); once the
// operator resolves it, both pass again.
func TestSessionHaltConsistent(t *testing.T) {
	r := newCheckout(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	r.dial()
	if _, _, code := r.hook(toolWrite("s1", r.dir, "a.txt"), "--retry-after", "1s", "--timeout", "30s"); code == 0 {
		t.Fatal("the hook allowed a write of a held file")
	}
	id := waitBlockerFor(t, r, "cc-s1", 10*time.Second)
	if err := os.RemoveAll(filepath.Join(r.dir, ".git", "leasegate", "hooks")); err != nil {
		t.Fatal(err)
	}
	prompt := `{"session_id":"s1","cwd":"` + r.dir + `","hook_event_name":"UserPromptSubmit","prompt":"go on"}`
	out, errs, code := r.hook(prompt)
	if code == 0 && !strings.Contains(out, id) {
		t.Fatalf("a prompt of the halted session passed: %s %s", out, errs)
	}
	out, errs, code = r.hook(toolWrite("s1", r.dir, "b.txt"))
	if code == 0 && !strings.Contains(out+errs, id) {
		t.Fatalf("a write of a free file by the halted session passed: %s %s", out, errs)
	}
	if h := r.holders()["b.txt"]; h != "" {
		t.Fatalf("the halted session was granted b.txt (held by %q)", h)
	}
	r.mustLG("resolve", id, "--deny")
	if _, errs, code := r.hook(toolWrite("s1", r.dir, "b.txt")); code != 0 {
		t.Fatalf("after the resolution a write of a free file is refused: exit %d: %s", code, errs)
	}
	if out, errs, code := r.hook(prompt); code != 0 || strings.Contains(out, id) {
		t.Fatalf("after the resolution the prompt is refused: exit %d: %s %s", code, out, errs)
	}
}

// TestBlockerTellsTheTruth: a worker halted on a blocker shows as halted
// in status; when its file becomes free, the blocker report, status and
// blockers say so and how to go on, and a notice is recorded, while the
// worker stays halted; the operator's note reaches the worker, and history
// shows the resolution with blocker id, path, action, note and who.
func TestBlockerTellsTheTruth(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	w := r.runWith("writer", "echo w >> a.txt", "--retry-after", "1s")
	id := waitBlockerFor(t, r, "writer", 20*time.Second)
	if ov, _ := r.ownerView("writer"); ov.HaltedBy != id {
		t.Fatalf("status shows writer halted by %q, want blocker %s", ov.HaltedBy, id)
	}
	if out := r.mustLG("status"); !strings.Contains(out, "halted (blocker "+id+")") {
		t.Fatalf("status text lacks the halt:\n%s", out)
	}
	if out := r.mustLG("blockers"); !strings.Contains(out, id) || !strings.Contains(out, "`leasegate blockers ID` shows a report in full, with the commands that resolve it") {
		t.Fatalf("the blockers list does not say where the commands that resolve %s are:\n%s", id, out)
	}

	r.mustLG("release", "a.txt", "--as", "holder")
	eventually(t, 10*time.Second, "the blocker to say the file is free", func() bool { return !mustBlocker(t, r, id).FreeSince.IsZero() })
	for what, out := range map[string]string{"status": r.mustLG("status"), "blockers": r.mustLG("blockers")} {
		if !strings.Contains(out, "free since") || !strings.Contains(out, "leasegate resolve "+id+" --retry") {
			t.Fatalf("%s does not say the file is free:\n%s", what, out)
		}
	}
	md, err := os.ReadFile(filepath.Join(r.dir, ".git", "leasegate", "blockers", id+".md"))
	if err != nil || !strings.Contains(string(md), "free since") {
		t.Fatalf("the report on disk does not say the file is free (%v):\n%s", err, md)
	}
	all, err := r.client.History(t.Context(), "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(all, func(e gate.Event) bool {
		return e.Type == gate.EventNotice && e.Reason == string(leasegate.NoticeFree) && strings.Contains(string(e.Data), id)
	}) {
		t.Fatal("no notice that the blocked file is free")
	}
	select {
	case <-w.done:
		t.Fatalf("the halted worker went on before the operator resolved its blocker:\n%s", w.out)
	case <-time.After(time.Second):
	}
	if got := r.read("a.txt"); got != "a\n" {
		t.Fatalf("a.txt = %q before the resolution", got)
	}

	r.mustLG("resolve", id, "--retry", "--note", "go ahead, holder is done")
	if code := w.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("writer exit %d:\n%s", code, w.out)
	}
	if !strings.Contains(w.out.String(), "go ahead, holder is done") {
		t.Fatalf("the operator's note did not reach the worker:\n%s", w.out)
	}
	var resolved *gate.Event
	for _, e := range r.history("a.txt") {
		if e.Type == gate.EventBlockerResolved {
			resolved = &e
		}
	}
	if resolved == nil || resolved.Path != "a.txt" || resolved.By == nil || !strings.Contains(resolved.Reason, "retry of blocker "+id) ||
		!strings.Contains(resolved.Reason, "go ahead, holder is done") {
		t.Fatalf("history of a.txt: resolution %+v, want blocker id, path, action, note and the operator", resolved)
	}
	if out := r.mustLG("history", "a.txt"); !strings.Contains(out, "retry of blocker "+id) || !strings.Contains(out, "[operator") {
		t.Fatalf("history text lacks the resolution:\n%s", out)
	}
	if out := r.mustLG("history", id); !strings.Contains(out, "retry of blocker "+id) {
		t.Fatalf("history by the blocker's id lacks its resolution:\n%s", out)
	}
}

// contentionOf waits for requester's waiting contention and returns its id.
func contentionOf(t *testing.T, r *repo, requester string) string {
	t.Helper()
	var id string
	eventually(t, 10*time.Second, requester+"'s contention", func() bool {
		for _, c := range r.status().Contentions {
			if c.Requester == requester && c.Outcome == leasegate.Contended {
				id = c.ID
				return true
			}
		}
		return false
	})
	return id
}

// TestResolveContention: an operator acts on a waiting write before its
// retry by the contention's id: --retry decides now (still held: the write
// keeps waiting, said so), --deny fails it with EBUSY at once with the
// operator's note; each is recorded with the operator.
func TestResolveContention(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "--as", "holder", "a.txt")
	w := r.runWith("writer", `python3 -c "open('a.txt','a').write('w')"; echo rc=$?`, "--retry-after", longRetry)
	id := contentionOf(t, r, "writer")

	out, errs, code := r.lg("resolve", id, "--retry")
	if code != 4 || strings.Count(out+errs, "still held by holder") != 1 {
		t.Fatalf("resolve --retry of a still held write: exit %d, %s %s; want exit 4 saying once that it is still held", code, out, errs)
	}
	// A script reading --json gets the same exit code, and the answer.
	out, errs, code = r.lg("resolve", id, "--retry", "--json")
	var res leasegate.ResolveResult
	if err := json.Unmarshal([]byte(out), &res); code != 4 || err != nil || res.Outcome != leasegate.Contended {
		t.Fatalf("resolve --retry --json of a still held write: exit %d, %s %s; want exit 4 and the contended answer", code, out, errs)
	}
	if got := contentionOf(t, r, "writer"); got != id {
		t.Fatalf("after --retry the writer waits on %s, want still %s", got, id)
	}
	r.mustLG("resolve", id, "--deny", "--note", "use b.txt instead")
	if code := w.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("writer exit %d:\n%s", code, w.out)
	}
	// The worker is told once that it is EBUSY, and why: "failed with
	// EBUSY: operator denied the write: EBUSY" said it twice.
	if out := w.out.String(); !strings.Contains(out, "Device or resource busy") || !strings.Contains(out, "use b.txt instead") ||
		!strings.Contains(out, "failed with EBUSY: an operator denied the write;") {
		t.Fatalf("the writer did not get EBUSY with the operator's note:\n%s", out)
	}
	var resolved *gate.Event
	for _, e := range r.history("a.txt") {
		if e.Type == gate.EventContentionResolved {
			resolved = &e
		}
		if e.Type == gate.EventGranted && e.Lease.Owner.Name == "writer" {
			t.Fatalf("the denied writer was granted a.txt: %+v", e)
		}
	}
	if resolved == nil || resolved.By == nil || !strings.Contains(resolved.Reason, "deny of contention "+id) || !strings.Contains(resolved.Reason, "use b.txt instead") {
		t.Fatalf("history of a.txt: resolution %+v, want the deny with its note and the operator", resolved)
	}
}

// TestPairNamedRight: a write of src/app.go waits on both leases of its
// pair; the holder releases src/app.go's lease but keeps src/app_test.go's.
// The waiting write, its retry's blocker report and the report's evict
// command then name the lease that still holds it: src/app_test.go's.
func TestPairNamedRight(t *testing.T) {
	r := newRepo(t, map[string]string{"src/app.go": "package app\n", "src/app_test.go": "package app\n"})
	holder := r.worker("carol", "echo '// c' >> src/app.go; sleep 60")
	eventually(t, 10*time.Second, "carol's two leases", func() bool {
		h := r.holders()
		return h["src/app.go"] == "carol" && h["src/app_test.go"] == "carol"
	})
	defer func() { _ = holder.cmd.Process.Kill() }()
	var appLease, testLease gate.LeaseID
	for _, l := range r.status().Leases {
		if l.Owner.Name != "carol" || len(l.Scope.Paths) != 1 {
			continue
		}
		switch l.Scope.Paths[0] {
		case "src/app.go":
			appLease = l.ID
		case "src/app_test.go":
			testLease = l.ID
		}
	}
	if appLease == "" || testLease == "" {
		t.Skipf("carol's pair is not two leases: %+v", r.status().Leases)
	}
	w := r.runWith("bob", "echo '// b' >> src/app.go", "--retry-after", "6s")
	contentionOf(t, r, "bob")
	r.mustLG("release", string(appLease), "--as", "carol")
	eventually(t, 5*time.Second, "bob's contention to name the lease still in the way", func() bool {
		cs := r.status().Contentions
		return len(cs) == 1 && cs[0].Holder.ID == testLease
	})
	id := waitBlockerFor(t, r, "bob", 20*time.Second)
	rep := mustBlocker(t, r, id)
	if rep.Holder.LeaseID != testLease || rep.Path != "src/app_test.go" {
		t.Fatalf("blocker names %s on %s, want the lease still holding it: %s on src/app_test.go", rep.Holder.LeaseID, rep.Path, testLease)
	}
	if !slices.ContainsFunc(rep.HowToResolve, func(c string) bool { return strings.Contains(c, "evict "+string(testLease)) }) {
		t.Fatalf("the report's evict does not name %s: %q", testLease, rep.HowToResolve)
	}
	r.mustLG("resolve", id, "--deny")
	w.wait(t, 20*time.Second)
}

// TestCountdownAndQuietNotices: on a terminal, a held write shows what it
// waits for and a countdown to its retry, one line redrawn, cut to fit a
// 60-column terminal and drawn without escape sequences (a wrapped line
// left a copy of its first row per redraw, and TERM=dumb printed the
// escape); the notice to the holder that a write is blocked on its lease
// does not go into the holder's screen but to its notices log. Off a
// terminal there is no countdown.
func TestCountdownAndQuietNotices(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	ptyRun := func(args ...string) *worker {
		w := &worker{out: &syncBuffer{}, done: make(chan struct{})}
		spawn := []string{"-c", "import pty,sys; pty.spawn(sys.argv[1:])", "sh", "-c", `stty cols 60 && exec "$@"`, "sh", bin}
		w.cmd = exec.Command("python3", append(spawn, args...)...)
		w.cmd.Dir, w.cmd.Env = r.dir, slices.Clone(r.env)
		w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
		w.cmd.WaitDelay = time.Second
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			_ = w.cmd.Wait()
			w.code = w.cmd.ProcessState.ExitCode()
			close(w.done)
		}()
		t.Cleanup(func() { _ = w.cmd.Process.Kill(); <-w.done })
		return w
	}
	carol := ptyRun("run", "--as", "carol", "--", "sh", "-c", "echo c >> a.txt; sleep 15")
	eventually(t, 10*time.Second, "carol to lease a.txt", func() bool { return r.holders()["a.txt"] == "carol" })
	bob := ptyRun("run", "--as", "bob", "--retry-after", "3s", "--", "sh", "-c", "echo b >> a.txt")
	id := waitBlockerFor(t, r, "bob", 20*time.Second)
	logPath := filepath.Join(r.dir, ".git", "leasegate", "notices", "carol.log")
	eventually(t, 10*time.Second, "the blocked notice in carol's notices log", func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Contains(string(b), "is blocked on your lease")
	})
	r.mustLG("resolve", id, "--deny")
	bob.wait(t, 20*time.Second)
	out := bob.out.String()
	if !strings.Contains(out, "\rleasegate: a.txt waits for carol — retry in ") || strings.Count(out, "— retry in ") < 2 {
		t.Fatalf("no redrawn countdown on bob's terminal:\n%q", out)
	}
	if strings.Contains(out, "\x1b[") {
		t.Fatalf("an escape sequence on bob's terminal:\n%q", out)
	}
	for _, row := range strings.Split(out, "\r") {
		if strings.Contains(row, "retry in ") && utf8.RuneCountInString(strings.TrimRight(row, " \n")) >= 60 {
			t.Fatalf("a countdown line %q wider than bob's 60-column terminal", row)
		}
	}
	if !strings.Contains(out, "retry in 2s") && !strings.Contains(out, "retry in 1s") {
		t.Fatalf("the countdown does not count down:\n%q", out)
	}
	if c := carol.out.String(); strings.Contains(c, "is blocked on your lease") || !strings.Contains(c, "notices for carol") {
		t.Fatalf("carol's terminal: the notice was written into it, or where notices go was not said:\n%q", c)
	}

	w := r.runWith("dave", "echo d >> a.txt", "--retry-after", "1s")
	waitBlockerFor(t, r, "dave", 20*time.Second)
	for _, b := range r.openBlockers() {
		r.mustLG("resolve", b.ID, "--deny")
	}
	w.wait(t, 20*time.Second)
	if strings.Contains(w.out.String(), "\x1b[K") || strings.Contains(w.out.String(), "retry in ") {
		t.Fatalf("a countdown off a terminal:\n%q", w.out)
	}
}

// TestHookHolderToldBetweenTurns: a hook session whose lease another
// worker's write waits on is told so, once, in the answer to its next
// prompt (between turns, never into the middle of the agent's work).
func TestHookHolderToldBetweenTurns(t *testing.T) {
	r := newCheckout(t, map[string]string{"a.txt": "a\n"})
	if _, errs, code := r.hook(toolWrite("s1", r.dir, "a.txt")); code != 0 {
		t.Fatalf("hook write of a free file: exit %d: %s", code, errs)
	}
	r.dial()
	w := r.runWith("bob", "echo b >> a.txt", "--retry-after", longRetry)
	contentionOf(t, r, "bob")
	prompt := `{"session_id":"s1","cwd":"` + r.dir + `","hook_event_name":"UserPromptSubmit","prompt":"go on"}`
	out, errs, code := r.hook(prompt)
	if code != 0 || !strings.Contains(out, "bob waits to write a.txt, which this session holds") {
		t.Fatalf("the holder's prompt: exit %d, %s %s; want it told that bob waits", code, out, errs)
	}
	if out, _, _ := r.hook(prompt); strings.Contains(out, "bob waits") {
		t.Fatalf("told twice: %s", out)
	}
	r.mustLG("release", "a.txt", "--as", "cc-s1")
	if code := w.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("bob exit %d:\n%s", code, w.out)
	}
}
