package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/internal/servicetest"
)

// TestWriteOutcomes: what a write hook answers for each way the contention
// protocol can end, step by step: a grant (at once or at the one retry)
// allows; a retry that finds the file still held denies and halts at
// once, naming the blocker, without holding for the operator (the agent
// would time the hook out and write); refusals deny, fail closed.
func TestWriteOutcomes(t *testing.T) {
	denied := servicetest.Answer{Result: leasegate.Result{Outcome: leasegate.Denied, Reason: gate.ReasonHeldByOther, Message: "refused by the operator"}}
	aborted := servicetest.Answer{Result: leasegate.Result{Outcome: leasegate.Aborted, Message: "aborted by the operator"}}
	tests := []struct {
		name           string
		mutates, waits []servicetest.Answer
		verdict        hooks.Verdict
		halt           bool
		reason         string // in the decision's reason
		steps          [2]int // Mutate and WaitContention calls
	}{
		{name: "granted", mutates: []servicetest.Answer{servicetest.Granted("cc-S", "src/app.go")}, steps: [2]int{1, 0}},
		{name: "contended then granted at the retry", mutates: []servicetest.Answer{contended("src/app.go")}, waits: []servicetest.Answer{servicetest.Granted("cc-S", "src/app.go")},
			steps: [2]int{1, 1}},
		{name: "contention forgotten by a restarted coordinator, asked again", mutates: []servicetest.Answer{contended("src/app.go"), servicetest.Granted("cc-S", "src/app.go")},
			waits: []servicetest.Answer{servicetest.Refused(gate.ReasonNotFound, "no contention C1")}, steps: [2]int{2, 1}},
		{name: "still held at the retry", mutates: []servicetest.Answer{contended("src/app.go")}, waits: []servicetest.Answer{blockedAt("src/app.go")},
			verdict: hooks.Deny, halt: true, reason: "still held, so blocker B1 is open and this session is halted", steps: [2]int{1, 1}},
		{name: "denied at the retry", mutates: []servicetest.Answer{contended("src/app.go")}, waits: []servicetest.Answer{denied},
			verdict: hooks.Deny, reason: "is refused: refused by the operator (LEASE_HELD_BY_OTHER)", steps: [2]int{1, 1}},
		{name: "denied at once", mutates: []servicetest.Answer{denied},
			verdict: hooks.Deny, reason: "is refused: refused by the operator (LEASE_HELD_BY_OTHER)", steps: [2]int{1, 0}},
		{name: "aborted", mutates: []servicetest.Answer{aborted},
			verdict: hooks.Deny, halt: true, reason: "an operator aborted this session's write to src/app.go", steps: [2]int{1, 0}},
		{name: "refused with an error", mutates: []servicetest.Answer{servicetest.Refused(gate.ReasonInputInvalid, "bad path")},
			verdict: hooks.Deny, reason: "is refused: bad path (INPUT_SCHEMA_INVALID)", steps: [2]int{1, 0}},
		{name: "another live agent acts as the owner", mutates: []servicetest.Answer{servicetest.Refused(gate.ReasonOwnerMismatch, "cc-S is another process's")},
			verdict: hooks.Deny, halt: true, reason: "this session cannot act as its owner", steps: [2]int{1, 0}},
	}
	r := newRepo(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := script(tt.mutates...)
			f.Waits = tt.waits
			d := newHandler(t, f, nil).Handle(context.Background(), writeEvent(r))
			if d.Verdict != tt.verdict || d.Halt != tt.halt || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("Handle() = %+v, want verdict %v, halt %t, a reason with %q", d, tt.verdict, tt.halt, tt.reason)
			}
			if got := [2]int{f.Count("Mutate"), f.Count("WaitContention")}; got != tt.steps {
				t.Errorf("Mutate, WaitContention called %v times, want %v", got, tt.steps)
			}
			if n := f.Count("WaitBlocker"); n != 0 {
				t.Errorf("WaitBlocker called %d times, want none: a hook does not hold for the operator", n)
			}
		})
	}
}

// TestWriteWaitsOutAnOutage: a write asked while the coordinator cannot be
// reached waits and is asked again; once it answers with a grant within
// Config.Unreachable the write is allowed, never before.
func TestWriteWaitsOutAnOutage(t *testing.T) {
	r := newRepo(t)
	synctest.Test(t, func(t *testing.T) {
		f := script(servicetest.Unavailable(), servicetest.Unavailable(), servicetest.Unavailable(), servicetest.Granted("cc-S", "src/app.go"))
		if d := newHandler(t, f, nil).Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
			t.Fatalf("Handle() after a short outage = %+v, want Allow", d)
		}
		if n := f.Count("Mutate"); n != 4 {
			t.Errorf("Mutate asked %d times, want 4 (three unavailable, then granted)", n)
		}
	})
}

// TestWriteGivesUpWaitingForTheRetry: a write whose wait for the one retry
// outlasts the hook's timeout is denied (fail closed) and its contention
// withdrawn, so the coordinator does not take a lease for a write that
// will not be made.
func TestWriteGivesUpWaitingForTheRetry(t *testing.T) {
	r := newRepo(t)
	synctest.Test(t, func(t *testing.T) {
		f := script(contended("src/app.go"))
		f.Waits = []servicetest.Answer{servicetest.Hang}
		h := newHandler(t, f, func(c *hooks.Config) { c.Timeout = time.Minute })
		d := h.Handle(context.Background(), writeEvent(r))
		if d.Verdict != hooks.Deny || !strings.Contains(d.Reason, "gave up after 1m0s waiting for the gate's answer on src/app.go") {
			t.Errorf("Handle() = %+v, want a denial after the 1m timeout", d)
		}
		if len(f.Withdrawn) != 1 || f.Withdrawn[0] != "C1" {
			t.Errorf("withdrawn %v, want [C1]", f.Withdrawn)
		}
	})
}

// TestWholeWriteStaleAfterWait: a Write (a whole file the model composed
// before the call) that waited for another owner's lease is refused when
// the holder changed the file, while the write waited or before it under
// that lease, naming the holder and telling the model to read the file
// again: allowed, it would undo the holder's work. An Edit, applied to
// the file as the agent finds it, and a Write of a file nobody changed
// under the holder's lease are allowed.
func TestWholeWriteStaleAfterWait(t *testing.T) {
	r := newRepo(t)
	for _, tt := range []struct {
		name    string
		agent   hooks.Agent // Claude Code unless set
		tool    string
		during  bool          // the holder writes the file while the write waits
		granted time.Duration // when the holder's lease was granted, from the file's last write; 0: unknown
		verdict hooks.Verdict
	}{
		{name: "changed during the wait", tool: "Write", during: true, verdict: hooks.Deny},
		{name: "changed under the lease before the call", tool: "Write", granted: -time.Minute, verdict: hooks.Deny},
		{name: "unchanged since the lease", tool: "Write", granted: time.Minute, verdict: hooks.Allow},
		{name: "unchanged, lease time unknown", tool: "Write", verdict: hooks.Allow},
		{name: "an edit", tool: "Edit", during: true, granted: -time.Minute, verdict: hooks.Allow},
		{name: "Cursor's Write", agent: hooks.Cursor, tool: "Write", during: true, verdict: hooks.Deny},
		{name: "Gemini CLI's write_file", agent: hooks.Gemini, tool: "write_file", during: true, verdict: hooks.Deny},
		{name: "Gemini CLI's replace", agent: hooks.Gemini, tool: "replace", during: true, verdict: hooks.Allow},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r.write("src/app.go", "package app\n")
			con := contended("src/app.go")
			if tt.granted != 0 {
				fi, err := os.Stat(filepath.Join(r.root, "src", "app.go"))
				if err != nil {
					t.Fatal(err)
				}
				con.Result.Contention.Holder.AcquiredAt = fi.ModTime().Add(tt.granted)
			}
			f := script(con)
			f.Waits = []servicetest.Answer{servicetest.Granted("cc-S", "src/app.go")}
			if tt.during {
				f.InWaitContention = func() { r.write("src/app.go", "package app\n\n// the holder's work\n") }
			}
			ev := writeEvent(r)
			ev.Tool = tt.tool
			if tt.agent != "" {
				ev.Agent = tt.agent
			}
			d := newHandler(t, f, nil).Handle(context.Background(), ev)
			if d.Verdict != tt.verdict {
				t.Errorf("Handle() = %+v, want verdict %v", d, tt.verdict)
			}
			if d.Verdict == hooks.Deny && (!strings.Contains(d.Reason, "src/app.go changed under bob's lease") || !strings.Contains(d.Reason, "read src/app.go again")) {
				t.Errorf("denial reason %q, want it to say the file changed under bob's lease and to read it again", d.Reason)
			}
		})
	}
}
