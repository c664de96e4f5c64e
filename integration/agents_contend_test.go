package integration_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// The file both agents write: Claude Code writes it whole, then Codex
// patches what Claude Code wrote.
const (
	sharedByClaude = "package shared\n\n// Claude Code wrote this.\n"
	sharedByCodex  = "package shared\n\n// Claude Code wrote this.\n// Codex added this.\n"
	sharedPatch    = "*** Begin Patch\n*** Update File: shared.go\n@@\n // Claude Code wrote this.\n+// Codex added this.\n*** End Patch\n"
)

// agentWait bounds how long a real agent CLI may take to start and reach
// its tool call on a loaded machine.
const agentWait = 90 * time.Second

// contenders is one repository whose coordinator has the contract's
// windows, with two real agents installed in it: Claude Code (A), whose
// model writes shared.go, and Codex (B), whose model patches it. Each
// model holds its session open after its tool's result until the test
// lets it go. Each agent names its own windows in its environment.
type contenders struct {
	r      *repo
	claude *claudeRun
	am     *messagesMock
	codex  string
	benv   []string
	bm     *responsesMock
}

func newContenders(t *testing.T, aWindows, bWindows []string) *contenders {
	t.Helper()
	return newContendersOn(t, "package shared\n", aWindows, bWindows)
}

// newContendersOn is contenders with shared.go committed as initial.
func newContendersOn(t *testing.T, initial string, aWindows, bWindows []string) *contenders {
	t.Helper()
	r := newCheckout(t, map[string]string{"shared.go": initial})
	r.startServerCmd(r.command(context.Background(), "serve", "--workspace", r.dir, "--log-level", "debug", "--idle-exit", "0"))
	assertContractDefaults(t, r.status())
	c := &contenders{r: r, codex: codexProgram(t)}
	write := fmt.Sprintf(`{"file_path":%q,"content":%q}`, filepath.Join(r.dir, "shared.go"), sharedByClaude)
	c.am = newScriptedMock(t, toolCall{"Write", write})
	c.am.hold = newTurnHold(t)
	c.claude = newClaudeRun(t, r, c.am)
	c.claude.env = append(c.claude.env, aWindows...)
	c.bm = newPatchMock(t, sharedPatch)
	c.bm.hold = newTurnHold(t)
	c.benv = append(codexEnv(t, r, c.codex, c.bm), bWindows...)
	if out, code := lgIn(t, r.dir, c.benv, "install", "codex", "--trust"); code != 0 || !strings.Contains(out, "all 5 hooks: they run") {
		t.Fatalf("install codex --trust: exit %d\n%s", code, out)
	}
	return c
}

// startHolder starts Claude Code and waits until its Write of shared.go
// is done and its model holds the session open; it returns the process
// and the session's owner, which must hold shared.go, alive.
func (c *contenders) startHolder(t *testing.T) (*worker, string) {
	t.Helper()
	a := c.claude.start(t, "write shared.go", "Write")
	holder := c.heldAfter(t, a, c.am.hold, "Claude Code's Write", sharedByClaude, "cc-")
	if o, _ := c.r.ownerView(holder); o.Liveness.Status != gate.Alive || !o.StoppedAt.IsZero() {
		t.Fatalf("holder %s is %s (stopped at %v), want alive and working while its model thinks", holder, o.Liveness.Status, o.StoppedAt)
	}
	return a, holder
}

// heldAfter waits until agent's write of shared.go (what) is done and its
// model holds the session open, and returns the session's owner, which
// must hold shared.go (named with prefix); the file must hold want.
func (c *contenders) heldAfter(t *testing.T, agent *worker, hold *turnHold, what, want, prefix string) string {
	t.Helper()
	hold.reachedWithin(t, agentWait, what+" of shared.go", agent.out.String)
	if got := c.r.read("shared.go"); got != want {
		t.Fatalf("shared.go = %q after %s, want %q\n%s", got, what, want, agent.out)
	}
	holder := c.r.holders()["shared.go"]
	if !strings.HasPrefix(holder, prefix) {
		t.Fatalf("shared.go held by %q after %s, want its session (%s...)", holder, what, prefix)
	}
	return holder
}

// startWaiter starts Codex, whose patch of shared.go the gate holds, and
// returns the process and the contention heartbeat the ledger recorded
// for it, which must name Codex's session as requester and holder as
// holder, with Codex's own retry window.
func (c *contenders) startWaiter(t *testing.T, holder string, retry time.Duration) (*worker, contention) {
	t.Helper()
	b := startCodex(t, c.r, c.codex, c.benv)
	var con contention
	eventually(t, agentWait, "Codex's contention heartbeat on shared.go", func() bool {
		con = sharedContention(t, c.r, "codex-")
		return !con.at.IsZero()
	})
	if con.Holder != holder || !strings.HasPrefix(con.Requester, "codex-") {
		t.Fatalf("contention heartbeat requester %q holder %q, want Codex's session (codex-...) and %s", con.Requester, con.Holder, holder)
	}
	if got := con.RetryAt.Sub(con.at); got != retry || con.RetryAfter != (gate.Window{After: retry, From: gate.FromEnv}) {
		t.Fatalf("contention heartbeat: retry_at %s after the denial, window %+v; want Codex's %s from its environment", got, con.RetryAfter, retry)
	}
	return b, con
}

// sharedContention is the contention heartbeat on shared.go in the
// ledger of the first requester whose name starts with prefix, if any.
func sharedContention(t *testing.T, r *repo, prefix string) contention {
	t.Helper()
	var con contention
	for _, e := range r.history("shared.go") {
		if e.Type == gate.EventContention && strings.HasPrefix(e.Actor, prefix) {
			mustJSON(t, string(e.Data), &con)
			con.at = e.At
			return con
		}
	}
	return con
}

// finish lets both models answer, waits for both agents to end, and
// checks that nothing of theirs is left: no lease, no open blocker.
func (c *contenders) finish(t *testing.T, a, b *worker) {
	t.Helper()
	c.am.hold.let()
	c.bm.hold.let()
	a.wait(t, agentWait)
	b.wait(t, agentWait)
	eventually(t, slack, "no lease left once both sessions ended", func() bool { return len(c.r.status().Leases) == 0 })
	if bs := c.r.openBlockers(); len(bs) != 0 {
		t.Fatalf("open blockers after both sessions ended: %+v", bs)
	}
}

// TestAgentsContendHolderEnds: Claude Code writes shared.go and, its
// model still thinking, holds it; Codex's apply_patch of the same file
// waits (a contention heartbeat naming both, Codex's own 20 s retry).
// Claude Code's session then ends before the retry: its lease is
// released, which wakes Codex's held write at once, and the file holds
// Codex's patch over Claude Code's content. Claude Code's Stop opened its
// own 2 s idle window; afterwards nothing is left.
func TestAgentsContendHolderEnds(t *testing.T) {
	const retry = 20 * time.Second
	c := newContenders(t, []string{"LEASEGATE_IDLE_AFTER=2s"}, []string{"LEASEGATE_RETRY_AFTER=" + retry.String()})
	a, holder := c.startHolder(t)
	b, con := c.startWaiter(t, holder, retry)

	c.am.hold.let()
	c.bm.hold.reachedWithin(t, agentWait, "Codex's apply_patch after Claude Code's session ended", b.out.String)
	if got := c.r.read("shared.go"); got != sharedByCodex {
		t.Fatalf("shared.go = %q, want Codex's patch over Claude Code's content %q\ncodex:\n%s", got, sharedByCodex, b.out)
	}
	var released, woken time.Time
	for _, e := range c.r.history("shared.go") {
		switch {
		case e.Type == gate.EventReleased && e.Actor == holder:
			released = e.At
		case e.Type == gate.EventContentionWoken && e.Actor == con.Requester:
			woken = e.At
		}
	}
	if released.IsZero() || woken.IsZero() || woken.Before(released) || !woken.Before(con.RetryAt) {
		t.Fatalf("Claude Code's lease released at %v, Codex's write woken at %v (retry at %v): want the release to wake it before the retry; history %v",
			released, woken, con.RetryAt, c.r.history("shared.go"))
	}
	t.Logf("Codex waited %s: woken %s after Claude Code's release", woken.Sub(con.at), woken.Sub(released))
	st, _ := lastStop(t, c.r.history(""), holder)
	if st.IdleAfter != (gate.Window{After: 2 * time.Second, From: gate.FromEnv}) || st.ReleaseAt.Sub(st.at) != 2*time.Second {
		t.Errorf("Claude Code's Stop recorded idle window %+v (release %s after), want its own 2s from its environment", st.IdleAfter, st.ReleaseAt.Sub(st.at))
	}
	c.finish(t, a, b)
	for p, u := range c.r.ungatedWrites() {
		if strings.HasPrefix(p, "shared") {
			t.Errorf("a write of the agents, each gated, was reported as ungated: %+v", u)
		}
	}
}

// TestAgentsContendHolderStays: Claude Code writes shared.go and, its
// model still thinking, holds it; Codex's apply_patch of the same file
// waits for its own 3 s retry, which finds the file still held: a blocker
// opens naming Claude Code's live session, with its evidence and windows,
// Codex's write is refused, the file keeps Claude Code's content, and
// Codex's model is told who holds the file and which blocker halts it.
// `leasegate resolve ID --deny` closes the blocker; both sessions then
// end and nothing is left.
func TestAgentsContendHolderStays(t *testing.T) {
	const retry = 3 * time.Second
	c := newContenders(t, []string{"LEASEGATE_IDLE_AFTER=2s"}, []string{"LEASEGATE_RETRY_AFTER=" + retry.String()})
	a, holder := c.startHolder(t)
	b, con := c.startWaiter(t, holder, retry)

	c.bm.hold.reachedWithin(t, agentWait, "Codex's apply_patch refused after its retry", b.out.String)
	if got := c.r.read("shared.go"); got != sharedByClaude {
		t.Fatalf("shared.go = %q, want Claude Code's %q unchanged\ncodex:\n%s", got, sharedByClaude, b.out)
	}
	bs := c.r.openBlockers()
	if len(bs) != 1 || bs[0].Holder.Owner.Name != holder || bs[0].Requester.Name != con.Requester || bs[0].Path != "shared.go" {
		t.Fatalf("open blockers %+v, want one of %s on shared.go against %s", bs, con.Requester, holder)
	}
	rep := bs[0]
	if rep.RetriedAt.Before(con.RetryAt) || rep.RetryInterval != retry || rep.RetryFrom != gate.FromEnv ||
		rep.Holder.IdleAfter != 2*time.Second || rep.Holder.IdleFrom != gate.FromEnv {
		t.Errorf("blocker retried at %v (retry at %v) with window %s (%s), holder idle %s (%s); want the retry at its time, each agent's window from its environment",
			rep.RetriedAt, con.RetryAt, rep.RetryInterval, rep.RetryFrom, rep.Holder.IdleAfter, rep.Holder.IdleFrom)
	}
	if rep.Holder.Liveness.Status != gate.Alive || len(rep.Holder.Liveness.Evidence) == 0 {
		t.Errorf("blocker's holder liveness %+v, want alive with evidence", rep.Holder.Liveness)
	}
	outs := c.bm.toolOutputs()
	if len(outs) == 0 {
		t.Fatalf("Codex's model got no tool output\ncodex:\n%s", b.out)
	}
	for _, want := range []string{"shared.go is leased by " + holder, "blocker " + rep.ID + " is open", "Do not write shared.go by any other means"} {
		if !strings.Contains(outs[len(outs)-1], want) {
			t.Errorf("Codex's model was not told %q; tool output: %s", want, outs[len(outs)-1])
		}
	}
	if h := c.r.holders()["shared.go"]; h != holder {
		t.Errorf("shared.go held by %q after the blocker opened, want %s still", h, holder)
	}

	c.r.mustLG("resolve", rep.ID, "--deny")
	if bs := c.r.openBlockers(); len(bs) != 0 {
		t.Fatalf("open blockers after resolve --deny: %+v", bs)
	}
	c.finish(t, a, b)
	// Closed by the operator's deny, not by liveness once Codex was gone.
	if got := mustBlocker(t, c.r, rep.ID).Resolution; got == nil || got.Action != blocker.ActionDeny || got.By == "liveness" {
		t.Errorf("blocker %s resolution %+v, want the operator's deny", rep.ID, got)
	}
	if got := c.r.read("shared.go"); got != sharedByClaude {
		t.Errorf("shared.go = %q after both sessions, want Claude Code's %q: the denied patch was applied\ncodex:\n%s", got, sharedByClaude, b.out)
	}
}

// TestAgentsContendInTurn: three real agents on one file. Claude Code
// writes shared.go and holds it; Codex's apply_patch, then Gemini CLI's
// replace wait on it. Claude Code's end wakes Codex, denied first, whose
// patch goes in over Claude Code's content while Gemini CLI waits on, now
// for Codex's lease; Codex's end wakes Gemini CLI, whose replace goes in
// over both. The file holds each agent's change, nothing overwritten.
func TestAgentsContendInTurn(t *testing.T) {
	const retry = 45 * time.Second
	c := newContenders(t, nil, []string{"LEASEGATE_RETRY_AFTER=" + retry.String()})
	replace := fmt.Sprintf(`{"file_path":%q,"old_string":"// Claude Code wrote this.\n","new_string":"// Claude Code wrote this.\n// Gemini CLI added this.\n","instruction":"add a line"}`,
		filepath.Join(c.r.dir, "shared.go"))
	gm := newGenerateMock(t, toolCall{"replace", replace})
	g := newGeminiRun(t, c.r, gm)
	g.env = append(g.env, "LEASEGATE_RETRY_AFTER="+retry.String())
	g.install(t)

	a, holder := c.startHolder(t)
	b, codexCon := c.startWaiter(t, holder, retry)
	gw := g.start(t, "add a line to shared.go")
	var geminiCon contention
	eventually(t, agentWait, "Gemini CLI's contention heartbeat on shared.go", func() bool {
		geminiCon = sharedContention(t, c.r, "gemini-")
		return !geminiCon.at.IsZero()
	})
	if geminiCon.Holder != holder {
		t.Fatalf("Gemini CLI's contention names holder %q, want %s", geminiCon.Holder, holder)
	}

	c.am.hold.let()
	c.bm.hold.reachedWithin(t, agentWait, "Codex's apply_patch after Claude Code's session ended", b.out.String)
	if got := c.r.read("shared.go"); got != sharedByCodex {
		t.Fatalf("shared.go = %q after Claude Code's end, want Codex's patch, denied first, over Claude Code's content %q\ngemini:\n%s", got, sharedByCodex, gw.out)
	}
	for _, con := range c.r.status().Contentions {
		if strings.HasPrefix(con.Requester, "gemini-") && con.Holder.Owner.Name != codexCon.Requester {
			t.Errorf("Gemini CLI waits on %s after Claude Code's end, want Codex's %s", con.Holder.Owner.Name, codexCon.Requester)
		}
	}
	c.bm.hold.let()
	if code := gw.wait(t, agentWait); code != 0 {
		t.Fatalf("gemini -p: exit %d\n%s", code, gw.out)
	}
	want := "package shared\n\n// Claude Code wrote this.\n// Gemini CLI added this.\n// Codex added this.\n"
	if got := c.r.read("shared.go"); got != want {
		t.Fatalf("shared.go = %q after all three, want %q: every agent's change, none overwritten\ngemini:\n%s", got, want, gw.out)
	}
	var woken []string
	for _, e := range c.r.history("shared.go") {
		if e.Type == gate.EventContentionWoken {
			woken = append(woken, e.Actor)
		}
	}
	if len(woken) != 2 || woken[0] != codexCon.Requester || woken[1] != geminiCon.Requester {
		t.Errorf("writes woken in turn: %v, want Codex's %s then Gemini CLI's %s", woken, codexCon.Requester, geminiCon.Requester)
	}
	c.finish(t, a, b)
}

// TestAgentsContendCodexHolds: the roles the other way round. Codex
// patches shared.go and, its model still thinking, holds it; Claude Code's
// Write of the whole file, composed before Codex's patch, waits with its
// own retry window. Codex's end wakes it, and the write is refused rather
// than made: made, it would silently undo Codex's patch. Claude Code's
// model is told that the file changed while it waited and to read it
// again; the file keeps Codex's patch.
func TestAgentsContendCodexHolds(t *testing.T) {
	const retry = 20 * time.Second
	c := newContendersOn(t, sharedByClaude, []string{"LEASEGATE_RETRY_AFTER=" + retry.String()}, nil)
	b := startCodex(t, c.r, c.codex, c.benv)
	holder := c.heldAfter(t, b, c.bm.hold, "Codex's apply_patch", sharedByCodex, "codex-")
	a := c.claude.start(t, "write shared.go", "Write")
	var con contention
	eventually(t, agentWait, "Claude Code's contention heartbeat on shared.go", func() bool {
		con = sharedContention(t, c.r, "cc-")
		return !con.at.IsZero()
	})
	if con.Holder != holder || con.RetryAfter != (gate.Window{After: retry, From: gate.FromEnv}) {
		t.Fatalf("Claude Code's contention names holder %q with window %+v, want %s and its own %s from its environment", con.Holder, con.RetryAfter, holder, retry)
	}
	c.bm.hold.let()
	c.am.hold.reachedWithin(t, agentWait, "Claude Code's Write after Codex's session ended", a.out.String)
	if got := c.r.read("shared.go"); got != sharedByCodex {
		t.Errorf("shared.go = %q after Claude Code's woken Write, want Codex's patch kept: %q", got, sharedByCodex)
	}
	_, results := c.am.seen()
	if len(results) != 1 || !strings.Contains(results[0], "shared.go changed under "+holder) || !strings.Contains(results[0], "read shared.go again") {
		t.Errorf("Claude Code's model was told %q, want that shared.go changed under %s, and to read it again", results, holder)
	}
	c.finish(t, a, b)
}

// TestAgentsContendGeminiWriteStale: Gemini CLI's write_file of the whole
// file, composed before Codex's patch, waits for Codex's lease and is
// refused once Codex's end grants it: the file keeps Codex's patch and
// Gemini CLI's model is told to read the file again.
func TestAgentsContendGeminiWriteStale(t *testing.T) {
	c := newContendersOn(t, sharedByClaude, nil, nil)
	write := fmt.Sprintf(`{"file_path":%q,"content":"package shared\n"}`, filepath.Join(c.r.dir, "shared.go"))
	gm := newGenerateMock(t, toolCall{"write_file", write})
	g := newGeminiRun(t, c.r, gm)
	g.env = append(g.env, "LEASEGATE_RETRY_AFTER=20s")
	g.install(t)
	b := startCodex(t, c.r, c.codex, c.benv)
	holder := c.heldAfter(t, b, c.bm.hold, "Codex's apply_patch", sharedByCodex, "codex-")
	gw := g.start(t, "write shared.go")
	eventually(t, agentWait, "Gemini CLI's contention heartbeat on shared.go", func() bool {
		return sharedContention(t, c.r, "gemini-").Holder == holder
	})
	c.bm.hold.let()
	if code := gw.wait(t, agentWait); code != 0 {
		t.Fatalf("gemini -p: exit %d\n%s", code, gw.out)
	}
	if got := c.r.read("shared.go"); got != sharedByCodex {
		t.Errorf("shared.go = %q after Gemini CLI's woken write_file, want Codex's patch kept: %q", got, sharedByCodex)
	}
	if _, results := gm.seen(); len(results) != 1 || !strings.Contains(results[0], "shared.go changed under "+holder) {
		t.Errorf("Gemini CLI's model was told %q, want that shared.go changed under %s's lease", results, holder)
	}
	b.wait(t, agentWait)
	eventually(t, slack, "no lease left once both sessions ended", func() bool { return len(c.r.status().Leases) == 0 })
}
