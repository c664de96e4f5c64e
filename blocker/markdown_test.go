package blocker_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestMarkdownGolden(t *testing.T) {
	golden := filepath.Join("testdata", "report.golden.md")
	got := report().Markdown()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatalf("update %s: %v", golden, err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read %s: %v (run go test -update to create it)", golden, err)
	}
	if got != string(want) {
		t.Errorf("Markdown() differs from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}

// TestMarkdownHasWhatAnOperatorNeeds lists what the contract asks a
// blocker report to show: file, owner, age, retry=180s, liveness evidence,
// how to resolve.
func TestMarkdownHasWhatAnOperatorNeeds(t *testing.T) {
	r := report()
	md := r.Markdown()
	need := map[string]string{
		"title":             "BLOCKED: alice cannot write src/foo.go",
		"file":              "`src/foo.go`",
		"paired file":       "`src/foo_test.go`",
		"holder":            "bob (host dev1, pid 4321)",
		"requester":         "alice (host dev1, pid 1234)",
		"age":               "12m30s, since 2025-03-01T11:50:30Z",
		"lease and token":   "`01JNQ4A0B1C2D3E4F5G6H7J8K9` (auto, fencing token 42)",
		"liveness status":   "alive, checked 2025-03-01T12:03:00Z",
		"first denied":      "2025-03-01T12:00:00Z (LEASE_HELD_BY_OTHER)",
		"retried at":        "2025-03-01T12:03:00Z (LEASE_HELD_BY_OTHER)",
		"retry interval":    "retry=3m0s",
		"blocker id":        "`01JNQ5Z6S4B3M2X8K7V9T0R1YA` (open)",
		"resolve section":   "## How to resolve",
		"first resolve cmd": "1. `leasegate resolve 01JNQ5Z6S4B3M2X8K7V9T0R1YA --retry",
	}
	for i, e := range r.Holder.Liveness.Evidence {
		need[fmt.Sprintf("evidence line %d", i+1)] = "- " + e
	}
	for i, cmd := range r.HowToResolve {
		need[fmt.Sprintf("command %d", i+1)] = fmt.Sprintf("%d. `%s`", i+1, cmd)
	}
	for what, s := range need {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown() lacks the %s %q:\n%s", what, s, md)
		}
	}
}

func TestMarkdownShowsResolution(t *testing.T) {
	r := report()
	if err := r.Resolve(blocker.ActionDeny, "carol", retried.Add(120e9), "bob is away"); err != nil {
		t.Fatalf("Resolve = %v", err)
	}
	md := r.Markdown()
	for _, s := range []string{"(denied)", "| Resolution | deny by carol at 2025-03-01T12:05:00Z: bob is away |"} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown() of a denied report lacks %q:\n%s", s, md)
		}
	}
}

// TestMarkdownEscapes checks that a path with a pipe, a backtick and a
// newline cannot break the table or the title, and that one with an
// escape sequence cannot drive the terminal the report is shown on: each
// is quoted as `leasegate status` quotes it, so it does not look like
// the name with a space where the newline was.
func TestMarkdownEscapes(t *testing.T) {
	in := input()
	in.Path = "a|b`c\nd"
	in.Paths = []string{in.Path, "\x1b[31mred"}
	md := blocker.New(in).Markdown()
	if want := "\n| File | ``\"a\\|b`c\\nd\"`` |\n"; !strings.Contains(md, want) {
		t.Errorf("Markdown() lacks the escaped File row %q:\n%s", want, md)
	}
	if want := "| All paths | ``\"a\\|b`c\\nd\"``, `\"\\x1b[31mred\"` |\n"; !strings.Contains(md, want) {
		t.Errorf("Markdown() lacks the escaped All paths row %q:\n%s", want, md)
	}
	if !strings.HasPrefix(md, "# BLOCKED: alice cannot write \"a|b`c\\nd\"\n") {
		t.Errorf("Markdown() title = %q, want the path quoted on one line", strings.SplitN(md, "\n", 2)[0])
	}
	if strings.Contains(md, "\x1b") {
		t.Errorf("Markdown() holds an escape character:\n%q", md)
	}
}

func TestWriteMarkdown(t *testing.T) {
	var buf bytes.Buffer
	r := report()
	if err := r.WriteMarkdown(&buf); err != nil || buf.String() != r.Markdown() {
		t.Errorf("WriteMarkdown = %v, wrote %d bytes; want Markdown()", err, buf.Len())
	}
}

// TestMarkdownNamesTheHeldName: a path blocked as another name of a file
// the holder leased shows the name the holder leased it under.
func TestMarkdownNamesTheHeldName(t *testing.T) {
	r := report()
	if md := r.Markdown(); strings.Contains(md, "Same file as") {
		t.Fatalf("Markdown() of a plain conflict has a same-file row:\n%s", md)
	}
	r.Holder.SameFileAs = "src/original.go"
	if md := r.Markdown(); !strings.Contains(md, "| Same file as | `src/original.go` (held under that name) |") {
		t.Fatalf("Markdown() lacks the holder's name of the file:\n%s", md)
	}
}

// TestMarkdownCheckoutHolder: a report on a file a check-out holds says
// how the check-out ends (release, check-in, eviction or its expiry), not
// only the holder's liveness and stop-idle window, which end no check-out:
// "judged by heartbeat, no heartbeat recorded" and "Holder stop-idle 30s"
// read as if the lease would go by itself.
func TestMarkdownCheckoutHolder(t *testing.T) {
	in := input()
	in.Holder.Kind, in.Holder.ExpiresAt = gate.KindCheckout, acquired.Add(72*time.Hour)
	in.HolderLiveness = gate.Liveness{Status: gate.Unknown, CheckedAt: retried, Evidence: []string{"owner has no pid: judged by heartbeat", "no heartbeat recorded"}}
	md := blocker.New(in).Markdown()
	for _, want := range []string{
		"- check-out lease: no process, heartbeat or stop-idle ends it; it ends by release, check-in, eviction or its expiry at 2025-03-04T11:50:30Z\n",
		"--retry  # after the holder releases or checks in its check-out (a commit does not end it)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report of a check-out holder lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Holder stop-idle") {
		t.Errorf("the report of a check-out holder shows a stop-idle window, which ends no check-out:\n%s", md)
	}
}

// TestMarkdownSaysTheHeldGitLock: a report whose requester's process held
// git's lock says so while open, with what it does to every other git and
// the resolutions that end it soonest; once resolved it only records the
// lock. A report without one has no such row.
func TestMarkdownSaysTheHeldGitLock(t *testing.T) {
	if md := report().Markdown(); strings.Contains(md, "Holds git's lock") {
		t.Fatalf("Markdown() of a write holding no git lock has a git lock row:\n%s", md)
	}
	in := input()
	in.HoldsGitLock = ".git/index.lock"
	r := blocker.New(in)
	md := r.Markdown()
	for _, s := range []string{"| Holds git's lock | the held write's process holds git's .git/index.lock: every other git in the repository fails",
		"`leasegate resolve " + r.ID + " --deny`", "or bob commits or releases the file |"} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown() of an open report holding git's lock lacks %q:\n%s", s, md)
		}
	}
	if err := r.Resolve(blocker.ActionDeny, "carol", retried.Add(120e9), ""); err != nil {
		t.Fatalf("Resolve = %v", err)
	}
	if md := r.Markdown(); !strings.Contains(md, "| Holds git's lock | `.git/index.lock` (until the write was decided) |") {
		t.Errorf("Markdown() of a denied report holding git's lock:\n%s", md)
	}
}
