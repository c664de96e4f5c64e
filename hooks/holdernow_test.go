package hooks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

// TestHookRefusalSaysTheHolderLetGo: once the holder of a blocker's file
// lets go, the session stays halted until an operator resolves the
// blocker, but what the model and the user read no longer names the
// holder as the one holding the file; it says how the write is granted.
func TestHookRefusalSaysTheHolderLetGo(t *testing.T) {
	r := newRepo(t)
	r.serve()
	r.mustLeasegate("acquire", "--as", "bob", "src/app.go")
	r.hook(hooks.ClaudeCode, "pretooluse-write.json", "A")
	reps := r.blockers()
	if len(reps) != 1 {
		t.Fatalf("blockers after the denial = %+v, want one", reps)
	}
	r.mustLeasegate("release", "src/app.go", "--as", "bob")
	rep := r.blockers()[0]
	if rep.HolderNow == nil || rep.HolderNow.Holds {
		t.Fatalf("holder_now after bob released = %+v, want a lease that no longer holds", rep.HolderNow)
	}
	gone := fmt.Sprintf("bob no longer holds src/app.go (%s)", rep.HolderNow.Phrase())

	refusal := fmt.Sprintf("leasegate: this session is halted by 1 open blocker(s), so this prompt is refused: blocker %s (src/app.go was leased by bob, who no longer holds it (%s): `leasegate resolve %s --retry` grants the write); resolve with `leasegate resolve ID --retry|--deny|--abort` (`leasegate blockers` shows them), then go on.",
		rep.ID, rep.HolderNow.Phrase(), rep.ID)
	sameOutput(t, "prompt while halted after bob released", r.hook(hooks.ClaudeCode, "userpromptsubmit.json", "A"),
		result{stdout: fmt.Sprintf(`{"decision":"block","reason":%q}`, refusal) + "\n", stderr: refusal + "\n", code: 2})

	got := r.hook(hooks.ClaudeCode, "pretooluse-write.json", "A")
	if got.code != 2 || strings.Contains(got.stdout, "is leased by bob") || strings.Contains(got.stdout, "still held") ||
		!strings.Contains(got.stdout, "bob no longer holds it ("+rep.HolderNow.Phrase()+")") ||
		!strings.Contains(got.stdout, gone) || !strings.Contains(got.stdout, "`leasegate resolve "+rep.ID+" --retry`") {
		t.Errorf("write while halted after bob released = %+v, want a denial saying bob no longer holds src/app.go and that a retry grants the write", got)
	}
	if n := len(r.blockers()); n != 1 {
		t.Errorf("asking again opened more blockers: %d open, want 1", n)
	}
}
