package integration_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// TestHookRefusesPathNoLeaseCanName: a Claude Code write of a path inside
// the workspace that no lease can name (over the 4096-byte limit, or
// holding a NUL byte) is refused with the reason, not let through
// ungated as if it lay outside the workspace.
func TestHookRefusesPathNoLeaseCanName(t *testing.T) {
	r := newRepo(t, nil)
	long := strings.Repeat(strings.Repeat("d", 200)+"/", 21) + "f.txt"
	for name, c := range map[string]struct{ path, want string }{
		"too long": {long, "over the 4096 byte limit"},
		"nul":      {"nul\x00x.txt", "contains a NUL byte"},
	} {
		ev := eventFile(t, claudeWrite(r, "s1", c.path))
		out, errs, code := r.lgStdin(ev, "hook", "claude-code")
		var got struct {
			Out struct{ PermissionDecision, PermissionDecisionReason string } `json:"hookSpecificOutput"`
		}
		_ = json.Unmarshal([]byte(out), &got)
		if got.Out.PermissionDecision != "deny" || !strings.Contains(got.Out.PermissionDecisionReason, c.want) ||
			!strings.Contains(got.Out.PermissionDecisionReason, "no path a lease can name") {
			t.Errorf("%s: hook claude-code exited %d, stdout %s, stderr %s; want a refusal saying %q", name, code, out, errs, c.want)
		}
	}
}

// TestInvalidUTF8NamesAreTwoLeases: two seccomp-gated workers writing
// names that differ only in a byte that is not valid UTF-8 ("bad\xff.txt"
// and "bad\xfe.txt") each hold their own lease, spelt with the byte
// escaped (gate.Literal) through the API, the ledger, status and history;
// the watcher that sees the raw names finds those leases (neither write is
// reported as ungated, while a write no worker made is).
func TestInvalidUTF8NamesAreTwoLeases(t *testing.T) {
	r := newRepo(t, nil)
	trigger := filepath.Join(t.TempDir(), "go")
	hold := "; while [ ! -e " + trigger + " ]; do sleep 0.05; done"
	ff, fe := gate.Literal("bad\xff.txt"), gate.Literal("bad\xfe.txt")
	alice := r.worker("alice", "printf a > \"$(printf 'bad\\377.txt')\""+hold)
	eventually(t, 20*time.Second, "alice's lease", func() bool { return r.holders()[ff] == "alice" })
	bob := r.start("run", "--as", "bob", "--retry-after", "1s", "--", "sh", "-c", "printf b > \"$(printf 'bad\\376.txt')\""+hold)
	eventually(t, 20*time.Second, "bob's lease", func() bool {
		if bs := r.openBlockers(); len(bs) > 0 {
			t.Fatalf("bob is blocked on %q held by %s: the two names share a lease", bs[0].Path, bs[0].Holder.Owner.Name)
		}
		return r.holders()[fe] == "bob"
	})
	r.write("plain.txt", "ungated\n")
	eventually(t, 20*time.Second, "the ungated write of plain.txt", func() bool { _, ok := r.ungatedWrites()["plain.txt"]; return ok })
	for p := range r.ungatedWrites() {
		if strings.HasPrefix(p, "bad") {
			t.Errorf("a gated write of %q is reported as ungated", p)
		}
	}
	if out := r.mustLG("status"); !strings.Contains(out, `bad\xff.txt`) || !strings.Contains(out, `bad\xfe.txt`) {
		t.Errorf("status does not show both names escaped:\n%s", out)
	}
	for shown, who := range map[string]string{`bad\xff.txt`: "alice", `bad\xfe.txt`: "bob"} {
		if out := r.mustLG("history", shown); !strings.Contains(out, "lease.granted") || !strings.Contains(out, who) {
			t.Errorf("history %s names no grant to %s:\n%s", shown, who, out)
		}
	}
	if err := os.WriteFile(trigger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for who, w := range map[string]*worker{"alice": alice, "bob": bob} {
		if code := w.wait(t, 30*time.Second); code != 0 {
			t.Fatalf("%s exited %d:\n%s", who, code, w.out)
		}
	}
	for name, want := range map[string]string{"bad\xff.txt": "a", "bad\xfe.txt": "b"} {
		if b, err := os.ReadFile(filepath.Join(r.dir, name)); err != nil || string(b) != want {
			t.Errorf("%q holds %q, %v; want %q", name, b, err, want)
		}
	}
}

// TestRunNoticesQuoteHostileName: a file name holding an escape sequence
// and a newline reaches the terminal of run only quoted: in the waiter's
// contention and BLOCKED lines and in the holder's notice that it blocks
// someone, as status shows it, so it can neither drive the terminal nor
// forge a line.
func TestRunNoticesQuoteHostileName(t *testing.T) {
	r := newRepo(t, nil)
	// The lease names the file as its pattern, the "[" escaped (gate.Literal).
	name := gate.Literal("\x1b[31mred\nfake")
	const shown = `"\x1b\\[31mred\nfake"`
	mk := `"$(printf '\033[31mred\nfake')"`
	trigger := filepath.Join(t.TempDir(), "go")
	alice := r.start("run", "--as", "alice", "--notices", "tty", "--", "sh", "-c",
		"printf x > "+mk+"; while [ ! -e "+trigger+" ]; do sleep 0.05; done")
	eventually(t, 20*time.Second, "alice's lease", func() bool { return r.holders()[name] == "alice" })
	bob := r.start("run", "--as", "bob", "--retry-after", "1s", "--", "sh", "-c", "{ printf b > "+mk+"; } 2>/dev/null")
	eventually(t, 30*time.Second, "bob's blocker", func() bool { return len(r.openBlockers()) == 1 })
	eventually(t, 10*time.Second, "alice's notice", func() bool { return strings.Contains(alice.out.String(), "blocked on your lease") })
	r.mustLG("resolve", r.openBlockers()[0].ID, "--deny")
	bob.wait(t, 30*time.Second)
	if err := os.WriteFile(trigger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	alice.wait(t, 30*time.Second)
	for who, out := range map[string]string{"bob": bob.out.String(), "alice": alice.out.String()} {
		if strings.Contains(out, "\x1b") || strings.Contains(out, "\nfake") || !strings.Contains(out, shown) {
			t.Errorf("%s's run shows the name unquoted:\n%q", who, out)
		}
	}
	if out := bob.out.String(); !strings.Contains(out, "contention: "+shown) || !strings.Contains(out, "BLOCKED: "+shown) {
		t.Errorf("bob's run lacks the contention and BLOCKED lines naming %s:\n%s", shown, out)
	}
}

// TestHookDenialQuotesHostileName: a Claude Code session blocked on a
// file whose name holds an escape sequence and a newline is told so with
// the name quoted, on stderr and in the reason and stop reason the agent
// shows its user, as status shows it.
func TestHookDenialQuotesHostileName(t *testing.T) {
	r := newRepo(t, nil)
	const name = "\x1b[31mred\nfake"
	ev := func(session string) string { return eventFile(t, claudeWrite(r, session, name)) }
	if out, errs, code := r.lgStdin(ev("s1"), "hook", "claude-code"); code != 0 || out != "" {
		t.Fatalf("s1's write: exit %d, stdout %s, stderr %s", code, out, errs)
	}
	out, errs, _ := r.lgStdin(ev("s2"), "hook", "claude-code", "--retry-after", "1s")
	var got struct {
		Out struct {
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
		StopReason string `json:"stopReason"`
	}
	mustJSON(t, out, &got)
	const shown = `"\x1b\\[31mred\nfake" is leased by cc-s1` // its lease's pattern (gate.Literal)
	for what, s := range map[string]string{"stderr": errs, "reason": got.Out.PermissionDecisionReason, "stop reason": got.StopReason} {
		if strings.Contains(s, "\x1b") || strings.Contains(s, "\nfake") || !strings.Contains(s, shown) {
			t.Errorf("the blocked hook's %s shows the name unquoted: %q", what, s)
		}
	}
}

// TestQuotedNameArgument: a name shown quoted (it holds a newline) is
// given back to history as it was shown and names the file; a name that
// starts with a quote is shown quoted and given back the same way.
func TestQuotedNameArgument(t *testing.T) {
	r := newRepo(t, nil)
	w := r.worker("alice", `printf x > "$(printf 'nl\nname')"; printf x > '"q"'`)
	if code := w.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("alice exited %d:\n%s", code, w.out)
	}
	for _, shown := range []string{`"nl\nname"`, `"\"q\""`} {
		out, errs, code := r.lg("history", shown)
		if code != 0 || !strings.Contains(out, "lease.granted") || !strings.Contains(out, shown+" (auto") {
			t.Errorf("history %s: exit %d, %s%s; want the file's lease shown as %s", shown, code, out, errs, shown)
		}
	}
}
