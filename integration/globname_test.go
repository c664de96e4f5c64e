package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// TestGlobNamedFileIsOneFile: a worker writing a file named "*" or
// "app/[id]/page.tsx" leases that one file, so another worker's writes of
// x.txt and app/a/page.tsx are granted at once rather than waiting for the
// retry window as for a held file.
func TestGlobNamedFileIsOneFile(t *testing.T) {
	r := newRepo(t, map[string]string{"app/[id]/page.tsx": "old\n", "app/a/page.tsx": "old\n"})
	alice := r.worker("alice", `echo x > '*' && echo x > 'app/[id]/page.tsx' && sleep 30`)
	star, page := gate.Literal("*"), gate.Literal("app/[id]/page.tsx")
	eventually(t, 8*time.Second, "alice's leases on * and app/[id]/page.tsx", func() bool {
		h := r.holders()
		return h[star] == "alice" && h[page] == "alice"
	})
	start := time.Now()
	bob := r.worker("bob", "echo b > x.txt && echo b > app/a/page.tsx")
	if code := bob.wait(t, retryAfter+5*time.Second); code != 0 {
		t.Fatalf("bob exited %d: %s", code, bob.out.String())
	}
	if took := time.Since(start); took >= retryAfter {
		t.Fatalf("bob's writes took %s, as long as a wait for the retry (%s): they were held", took, retryAfter)
	}
	for _, f := range []string{"x.txt", "app/a/page.tsx"} {
		if b, err := os.ReadFile(filepath.Join(r.dir, f)); err != nil || string(b) != "b\n" {
			t.Fatalf("%s = %q, %v; want bob's write", f, b, err)
		}
	}
	if h := r.holders(); h[star] != "alice" || h[page] != "alice" {
		t.Fatalf("holders = %v, want alice still holding %s and %s", h, star, page)
	}
	// The lease as status shows it is given back to history, and a file
	// check-out takes a name as that one file.
	if out, errs, code := r.lg("status"); code != 0 || !strings.Contains(out, page) {
		t.Fatalf("status: exit %d, %s%s; want alice's lease shown as %s", code, out, errs, page)
	}
	if out, errs, code := r.lg("history", page); code != 0 || !strings.Contains(out, "lease.granted") {
		t.Fatalf("history %s: exit %d, %s%s; want its grant", page, code, out, errs)
	}
	if out, errs, code := r.lg("acquire", "--as", "carol", "--scope", "file", "app/[id]/other.tsx"); code != 0 {
		t.Fatalf("acquire --scope file app/[id]/other.tsx: exit %d, %s%s; want the file checked out", code, out, errs)
	}
	if other := gate.Literal("app/[id]/other.tsx"); r.holders()[other] != "carol" {
		t.Fatalf("holders = %v, want carol holding %s", r.holders(), other)
	}
	_ = alice // ended by the test's cleanup
}

// TestCommitReleasesGlobNamedFile: a commit releases the lease of a
// committed, clean file whose name holds "[" as it does any other.
func TestCommitReleasesGlobNamedFile(t *testing.T) {
	r := newRepo(t, map[string]string{"app/[id]/page.tsx": "old\n", "b.txt": "b\n"})
	w := r.worker("alice", `echo x >> 'app/[id]/page.tsx' && echo y >> b.txt && git add 'app/[id]/page.tsx' && git commit -qm a && sleep 3`)
	page := gate.Literal("app/[id]/page.tsx")
	eventually(t, 8*time.Second, "release of committed app/[id]/page.tsx", func() bool {
		h := r.holders()
		return h[page] == "" && h["b.txt"] == "alice"
	})
	w.wait(t, 10*time.Second)
	released := false
	for _, e := range r.history(page) {
		released = released || e.Type == gate.EventReleased
	}
	if !released {
		t.Fatalf("no release of %s in its history", page)
	}
}

// TestHookGlobNamedFileIsOneFile: a Claude Code session's write of
// app/[id]/page.tsx leases that one file, so another session's write of
// app/a/page.tsx is allowed at once rather than held for the retry.
func TestHookGlobNamedFileIsOneFile(t *testing.T) {
	r := newRepo(t, map[string]string{"app/[id]/page.tsx": "old\n", "app/a/page.tsx": "old\n"})
	ev := func(session, file string) string { return eventFile(t, claudeWrite(r, session, file)) }
	if out, errs, code := r.lgStdin(ev("s1", "app/[id]/page.tsx"), "hook", "claude-code"); code != 0 || out != "" {
		t.Fatalf("s1's write: exit %d, stdout %s, stderr %s", code, out, errs)
	}
	if h := r.holders(); h[gate.Literal("app/[id]/page.tsx")] != "cc-s1" {
		t.Fatalf("holders = %v, want cc-s1 holding %s", h, gate.Literal("app/[id]/page.tsx"))
	}
	start := time.Now()
	if out, errs, code := r.lgStdin(ev("s2", "app/a/page.tsx"), "hook", "claude-code", "--retry-after", "3s"); code != 0 || out != "" {
		t.Fatalf("s2's write of app/a/page.tsx: exit %d, stdout %s, stderr %s; want it allowed", code, out, errs)
	}
	if took := time.Since(start); took >= 3*time.Second {
		t.Fatalf("s2's write took %s, as long as the retry: it was held", took)
	}
}
