package integration_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// TestBlockerReportAfterReclaim is the trial's case: the holder's
// `leasegate run` is killed with SIGKILL after the blocker opened. Read
// afterwards, `blockers ID` (text and --json), the list and the report
// files show the holder's lease reclaimed, not the holder alive, offer no
// evict of the ended lease, and the steps they give work when pasted from
// a subdirectory of the checkout.
func TestBlockerReportAfterReclaim(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "sub/x.txt": "x\n"})
	holder := r.worker("holder", "echo h >> a.txt; echo h >> b.txt; sleep 60")
	eventually(t, 10*time.Second, "holder to lease a.txt and b.txt", func() bool {
		h := r.holders()
		return h["a.txt"] == "holder" && h["b.txt"] == "holder"
	})
	wa := r.runWith("wa", "echo w >> a.txt", "--retry-after", "1s")
	wb := r.runWith("wb", "echo w >> b.txt", "--retry-after", "1s")
	ida, idb := waitBlockerFor(t, r, "wa", 20*time.Second), waitBlockerFor(t, r, "wb", 20*time.Second)
	if rep := r.blockerJSON(ida); rep.HolderNow == nil || !rep.HolderNow.Holds || !slices.ContainsFunc(rep.HowToResolve, isEvict) {
		t.Fatalf("blockers %s --json while the holder runs: holder now %+v, steps %q; want holding, with an evict", ida, rep.HolderNow, rep.HowToResolve)
	}

	_ = holder.cmd.Process.Kill()
	eventually(t, 10*time.Second, "the report to show the holder reclaimed", func() bool {
		n := r.blockerJSON(ida).HolderNow
		return n != nil && n.State == gate.StateReclaimed
	})
	rep := r.blockerJSON(ida)
	if n := rep.HolderNow; n.Holds || n.EndedBy != "liveness" || !strings.Contains(n.Evidence, "owner dead") || n.Source != blocker.SourceTable {
		t.Errorf("holder now %+v, want reclaimed by liveness with the evidence, from the lease table", n)
	}
	if slices.ContainsFunc(rep.HowToResolve, isEvict) || !strings.HasPrefix(rep.HowToResolve[0], "leasegate resolve "+ida+" --retry") {
		t.Errorf("steps after the reclaim %q, want the retry first and no evict", rep.HowToResolve)
	}
	eventually(t, 10*time.Second, "the report file to be rewritten", func() bool {
		md, _ := os.ReadFile(filepath.Join(r.dir, ".git", "leasegate", "blockers", ida+".md"))
		return strings.Contains(string(md), "| Holder now | lease reclaimed at ")
	})
	text := r.mustLG("blockers", ida)
	for _, s := range []string{"| Holder liveness | alive, checked ", "(at the retry)", "| Holder now | lease reclaimed at ", "as of "} {
		if !strings.Contains(text, s) {
			t.Errorf("blockers %s lacks %q:\n%s", ida, s, text)
		}
	}
	if strings.Contains(text, "leasegate evict") {
		t.Errorf("blockers %s offers to evict a reclaimed lease:\n%s", ida, text)
	}
	if list := r.mustLG("blockers"); strings.Count(list, "holder holder: lease reclaimed at ") != 2 {
		t.Errorf("the blockers list does not say both holders' leases were reclaimed:\n%s", list)
	}

	r.paste(ida, rep.HowToResolve[0], 0)
	if code := wa.wait(t, 20*time.Second); code != 0 || !strings.HasSuffix(r.read("a.txt"), "w\n") {
		t.Fatalf("wa after its pasted retry: exit %d, a.txt %q:\n%s", code, r.read("a.txt"), wa.out)
	}
	r.paste(idb, stepWith(t, r.blockerJSON(idb), "--deny"), 0)
	if code := wb.wait(t, 20*time.Second); code == 0 {
		t.Fatalf("wb went on as if its denied write succeeded:\n%s", wb.out)
	}
	if rep := r.blockerJSON(ida); len(rep.HowToResolve) != 0 || !strings.Contains(r.mustLG("blockers", ida), "Nothing left to do: the blocker is retried.") {
		t.Errorf("a resolved report still lists steps: %q", rep.HowToResolve)
	}
}

// TestBlockerStepsPasteFromSubdirectory runs each command a report gives
// while its holder holds (evict then retry, deny, abort), as pasted from a
// subdirectory of the checkout, and checks its exit code and what it did.
func TestBlockerStepsPasteFromSubdirectory(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "sub/x.txt": "x\n"})
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		r.mustLG("acquire", "--as", "holder", f)
	}
	ws := map[string]*worker{}
	ids := map[string]string{}
	for _, f := range []string{"a", "b", "c"} {
		ws[f] = r.runWith("w"+f, "echo w >> "+f+".txt", "--retry-after", "1s")
	}
	for f := range ws {
		ids[f] = waitBlockerFor(t, r, "w"+f, 20*time.Second)
	}

	r.paste(ids["a"], stepWith(t, r.blockerJSON(ids["a"]), "leasegate evict "), 0)
	r.paste(ids["a"], stepWith(t, r.blockerJSON(ids["a"]), "--retry"), 0)
	if code := ws["a"].wait(t, 20*time.Second); code != 0 || !strings.HasSuffix(r.read("a.txt"), "w\n") {
		t.Fatalf("wa after evict and retry: exit %d, a.txt %q:\n%s", code, r.read("a.txt"), ws["a"].out)
	}
	r.paste(ids["b"], stepWith(t, r.blockerJSON(ids["b"]), "--deny"), 0)
	if code := ws["b"].wait(t, 20*time.Second); code == 0 || r.read("b.txt") != "b\n" {
		t.Fatalf("wb after deny: exit %d, b.txt %q:\n%s", code, r.read("b.txt"), ws["b"].out)
	}
	r.paste(ids["c"], stepWith(t, r.blockerJSON(ids["c"]), "--abort"), 0)
	if code := ws["c"].wait(t, 20*time.Second); code != 4 {
		t.Fatalf("wc after abort: exit %d, want 4:\n%s", code, ws["c"].out)
	}
}

// blockerJSON is `leasegate blockers ID --json`, run in a subdirectory.
func (r *repo) blockerJSON(id string) blocker.Report {
	r.t.Helper()
	out, errs, code := r.shIn("sub", "leasegate blockers "+id+" --json")
	var reps []blocker.Report
	mustJSON(r.t, out, &reps)
	if code != 0 || len(reps) != 1 {
		r.t.Fatalf("blockers %s --json: exit %d, %d reports\n%s", id, code, len(reps), errs)
	}
	return reps[0]
}

// paste runs a line a report gives as an operator pastes it into a shell
// in a subdirectory of the checkout, and checks its exit code.
func (r *repo) paste(id, line string, want int) {
	r.t.Helper()
	if out, errs, code := r.shIn("sub", line); code != want {
		r.t.Fatalf("blocker %s: pasted %q: exit %d, want %d\nstdout: %s\nstderr: %s", id, line, code, want, out, errs)
	}
}

// shIn runs line with sh in the checkout's directory dir, the leasegate
// under test first on PATH.
func (r *repo) shIn(dir, line string) (string, string, int) {
	r.t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = filepath.Join(r.dir, dir)
	cmd.Env = append(slices.Clone(r.env), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("sh -c %q: %v", line, err)
	}
	return out.String(), errb.String(), 0
}

// stepWith is the report's one step containing s.
func stepWith(t *testing.T, rep blocker.Report, s string) string {
	t.Helper()
	i := slices.IndexFunc(rep.HowToResolve, func(c string) bool { return strings.Contains(c, s) })
	if i < 0 {
		t.Fatalf("blocker %s: no step with %q in %q", rep.ID, s, rep.HowToResolve)
	}
	return rep.HowToResolve[i]
}

func isEvict(step string) bool { return strings.HasPrefix(step, "leasegate evict ") }

// TestConsoleBlockerHolderNow: the console's blocker card shows the
// holder's lease now beside its liveness at the retry, and is drawn again
// when the holder is reclaimed: its steps no longer evict the ended lease.
func TestConsoleBlockerHolderNow(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	url := startUI(t, r)
	ctx := browser(t, 2*time.Minute)
	run(t, ctx, "log in", chromedp.Navigate(url), chromedp.WaitVisible(`#conn.on`, chromedp.ByQuery))
	holder := r.worker("holder", "echo h >> a.txt; sleep 60")
	eventually(t, 10*time.Second, "holder to lease a.txt", func() bool { return r.holders()["a.txt"] == "holder" })
	w := r.runWith("writer", "echo w >> a.txt", "--retry-after", "1s")
	var steps string
	run(t, ctx, "the blocker card shows the holder holding", chromedp.WaitVisible(`[data-blocker-id] [data-holder-now="active"]`, chromedp.ByQuery),
		chromedp.Text(`[data-blocker-id] pre`, &steps, chromedp.ByQuery))
	if !strings.Contains(steps, "leasegate evict ") {
		t.Errorf("the card's steps while the holder holds lack the evict:\n%s", steps)
	}
	_ = holder.cmd.Process.Kill()
	// Read the card once it shows the holder's end and the file free (its
	// last redraw), in one evaluation: a redraw between two reads would
	// take the first one's node away.
	var card struct{ Now, Steps string }
	run(t, ctx, "the card shows the holder reclaimed", chromedp.Poll(`(() => {
		const n = document.querySelector('[data-blocker-id] [data-holder-now="reclaimed"]');
		if (!n || !n.textContent.includes("free since")) return null;
		return {now: n.textContent, steps: n.closest("[data-blocker-id]").querySelector("pre").textContent};
	})()`, &card))
	if !strings.Contains(card.Now, "by liveness: owner dead") || strings.Contains(card.Steps, "leasegate evict ") || !strings.Contains(card.Steps, "--retry  # first:") {
		t.Errorf("after the reclaim the card reads %q with the steps:\n%s", card.Now, card.Steps)
	}
	run(t, ctx, "retry from the page", chromedp.Click(`[data-blocker-id] button[data-action="retry"]`, chromedp.ByQuery),
		chromedp.Click(`button[data-confirm="retry"]`, chromedp.ByQuery), chromedp.WaitVisible(`[data-result="ok"]`, chromedp.ByQuery))
	if code := w.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("writer after the retry: exit %d:\n%s", code, w.out)
	}
}
