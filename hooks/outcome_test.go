package hooks_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/hooks"
)

// TestWriteOutcomes: what a write hook answers for each way the contention
// protocol can end, step by step: a grant (at once or at the one retry)
// allows; a retry that finds the file still held denies and halts at
// once, naming the blocker, without holding for the operator (the agent
// would time the hook out and write); refusals deny, fail closed.
func TestWriteOutcomes(t *testing.T) {
	denied := answer{r: leasegate.Result{Outcome: leasegate.Denied, Reason: gate.ReasonHeldByOther, Message: "refused by the operator"}}
	aborted := answer{r: leasegate.Result{Outcome: leasegate.Aborted, Message: "aborted by the operator"}}
	tests := []struct {
		name           string
		mutates, waits []answer
		verdict        hooks.Verdict
		halt           bool
		reason         string // in the decision's reason
		steps          [2]int // Mutate and WaitContention calls
	}{
		{name: "granted", mutates: []answer{granted("cc-S", "src/app.go")}, steps: [2]int{1, 0}},
		{name: "contended then granted at the retry", mutates: []answer{contended("src/app.go")}, waits: []answer{granted("cc-S", "src/app.go")},
			steps: [2]int{1, 1}},
		{name: "contention forgotten by a restarted coordinator, asked again", mutates: []answer{contended("src/app.go"), granted("cc-S", "src/app.go")},
			waits: []answer{refusedWith(gate.ReasonNotFound, "no contention C1")}, steps: [2]int{2, 1}},
		{name: "still held at the retry", mutates: []answer{contended("src/app.go")}, waits: []answer{blockedAt("src/app.go")},
			verdict: hooks.Deny, halt: true, reason: "still held, so blocker B1 is open and this session is halted", steps: [2]int{1, 1}},
		{name: "denied at the retry", mutates: []answer{contended("src/app.go")}, waits: []answer{denied},
			verdict: hooks.Deny, reason: "is refused: refused by the operator (LEASE_HELD_BY_OTHER)", steps: [2]int{1, 1}},
		{name: "denied at once", mutates: []answer{denied},
			verdict: hooks.Deny, reason: "is refused: refused by the operator (LEASE_HELD_BY_OTHER)", steps: [2]int{1, 0}},
		{name: "aborted", mutates: []answer{aborted},
			verdict: hooks.Deny, halt: true, reason: "an operator aborted this session's write to src/app.go", steps: [2]int{1, 0}},
		{name: "refused with an error", mutates: []answer{refusedWith(gate.ReasonInputInvalid, "bad path")},
			verdict: hooks.Deny, reason: "is refused: bad path (INPUT_SCHEMA_INVALID)", steps: [2]int{1, 0}},
		{name: "another live agent acts as the owner", mutates: []answer{refusedWith(gate.ReasonOwnerMismatch, "cc-S is another process's")},
			verdict: hooks.Deny, halt: true, reason: "this session cannot act as its owner", steps: [2]int{1, 0}},
	}
	r := newRepo(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := script(tt.mutates...)
			f.waits = tt.waits
			d := newHandler(t, f, nil).Handle(context.Background(), writeEvent(r))
			if d.Verdict != tt.verdict || d.Halt != tt.halt || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("Handle() = %+v, want verdict %v, halt %t, a reason with %q", d, tt.verdict, tt.halt, tt.reason)
			}
			if got := [2]int{f.count("Mutate"), f.count("WaitContention")}; got != tt.steps {
				t.Errorf("Mutate, WaitContention called %v times, want %v", got, tt.steps)
			}
			if n := f.count("WaitBlocker"); n != 0 {
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
		f := script(unavailableAnswer(), unavailableAnswer(), unavailableAnswer(), granted("cc-S", "src/app.go"))
		if d := newHandler(t, f, nil).Handle(context.Background(), writeEvent(r)); d.Verdict != hooks.Allow {
			t.Fatalf("Handle() after a short outage = %+v, want Allow", d)
		}
		if n := f.count("Mutate"); n != 4 {
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
		f.waits = []answer{hang}
		h := newHandler(t, f, func(c *hooks.Config) { c.Timeout = time.Minute })
		d := h.Handle(context.Background(), writeEvent(r))
		if d.Verdict != hooks.Deny || !strings.Contains(d.Reason, "gave up after 1m0s waiting for the gate's answer on src/app.go") {
			t.Errorf("Handle() = %+v, want a denial after the 1m timeout", d)
		}
		if len(f.withdrawn) != 1 || f.withdrawn[0] != "C1" {
			t.Errorf("withdrawn %v, want [C1]", f.withdrawn)
		}
	})
}
