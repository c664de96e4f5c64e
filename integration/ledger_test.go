package integration_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/store/bolt"
)

// ledgerRepo checks out n files as alice, one acquire each, then stops
// the coordinator: with kill -9 the events are only in the journal, with
// a clean stop they are in the bbolt file too. It returns the ledger path
// and a copy of its files to restore between cases.
func ledgerRepo(t *testing.T, n int, kill bool) (*repo, string, map[string][]byte) {
	t.Helper()
	r := newRepo(t, nil)
	for i := range n {
		r.mustLG("acquire", fmt.Sprintf("f%d.txt", i), "--as", "alice")
	}
	path := filepath.Join(r.dir, ".git", "leasegate", "ledger.db")
	for _, cmd := range []string{"check", "recover"} {
		if _, errs, code := r.lg("ledger", cmd); code == 0 || !strings.Contains(errs, "serves this workspace") {
			t.Errorf("ledger %s while the coordinator runs: exit %d, %q; want a refusal naming it", cmd, code, errs)
		}
	}
	if kill {
		r.killServer()
	} else {
		r.stopServer()
	}
	saved := map[string][]byte{}
	for _, name := range []string{path, bolt.SegmentPath(path, 0), bolt.SegmentPath(path, 1)} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		saved[name] = b
	}
	return r, path, saved
}

// restore puts the saved files back and removes what recover set aside.
func restore(t *testing.T, path string, saved map[string][]byte) {
	t.Helper()
	aside, _ := filepath.Glob(path + "*.damaged-*")
	for _, a := range aside {
		os.Remove(a)
	}
	for name, b := range saved {
		if err := os.WriteFile(name, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// damage changes the file at name: flips the first byte of every
// occurrence of marker (bbolt may keep stale copies of a page), or
// truncates it to size when marker is empty, or removes it when size is
// negative too.
func damage(t *testing.T, name, marker string, size int64) {
	t.Helper()
	if marker == "" && size < 0 {
		if err := os.Remove(name); err != nil {
			t.Fatal(err)
		}
		return
	}
	if marker == "" {
		if err := os.Truncate(name, size); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(marker)) {
		t.Fatalf("%q not in %s", marker, name)
	}
	b = bytes.ReplaceAll(b, []byte(marker), append([]byte{marker[0] ^ 0x20}, marker[1:]...))
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestLedgerCheckAndRecover: on copies of a real ledger damaged in its
// journal or its bbolt file (a flipped byte, a truncation), `ledger
// check` says where it breaks (exit 1 when the coordinator would refuse
// it), `ledger recover` keeps the originals aside, rebuilds from every
// readable event of both and says what was lost, and the coordinator
// starts on the result with exactly the leases that survived.
func TestLedgerCheckAndRecover(t *testing.T) {
	const n = 20
	type ledgerCase struct {
		name      string
		file      func(path string) string
		marker    string
		size      int64
		checkExit int
		checkSays string
		lostSays  string
		leases    int
	}
	journal := func(path string) string { return bolt.SegmentPath(path, 0) }
	file := func(path string) string { return path }
	run := func(t *testing.T, kill bool, cases []ledgerCase) {
		r, path, saved := ledgerRepo(t, n, kill)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				restore(t, path, saved)
				damage(t, tc.file(path), tc.marker, tc.size)
				if tc.checkExit != 0 {
					// The coordinator refuses the damaged ledger with its cause, and keeps it.
					_, errs, code := r.lg("serve", "--idle-exit", "0")
					if code == 0 || !strings.Contains(errs, "ledger corrupt") || !strings.Contains(errs, "ledger check") {
						t.Fatalf("serve on the damaged ledger: exit %d, %q; want a refusal with the cause", code, errs)
					}
				}
				out, errs, code := r.lg("ledger", "check")
				if code != tc.checkExit || !strings.Contains(out, tc.checkSays) {
					t.Fatalf("ledger check: exit %d, want %d and %q in:\n%s%s", code, tc.checkExit, tc.checkSays, out, errs)
				}
				out = r.mustLG("ledger", "recover")
				if !strings.Contains(out, tc.lostSays) || !strings.Contains(out, "original kept as") {
					t.Fatalf("ledger recover said:\n%s\nwant %q and where the originals are", out, tc.lostSays)
				}
				if aside, _ := filepath.Glob(path + "*.damaged-*"); len(aside) == 0 {
					t.Fatal("no original set aside")
				}
				if _, _, code := r.lg("ledger", "check"); code != 0 {
					t.Fatalf("ledger check after recover: exit %d", code)
				}
				r.startServer(retryAfter, idleAfter)
				defer r.stopServer()
				if got := len(r.status().Leases); got != tc.leases {
					t.Fatalf("after recover the coordinator has %d leases, want %d", got, tc.leases)
				}
			})
		}
	}
	t.Run("killed", func(t *testing.T) {
		run(t, true, []ledgerCase{
			{name: "journal byte", file: journal, marker: `"f7.txt"`, checkExit: 1, checkSays: "ledger corrupt at event 8", lostSays: "lost: events 8 to 8", leases: n - 1},
			{name: "journal truncated", file: journal, size: 4000, checkExit: 0, checkSays: "torn tail", lostSays: "kept", leases: 9},
		})
	})
	t.Run("stopped", func(t *testing.T) {
		run(t, false, []ledgerCase{
			// The journal still holds what the bbolt file lost: nothing is.
			{name: "file byte", file: file, marker: `"f7.txt"`, checkExit: 1, checkSays: "event 8", lostSays: fmt.Sprintf("%d events kept", n), leases: n},
			// The journal still holds the events: the next start refuses
			// rather than start over and reset it.
			{name: "file removed", file: file, size: -1, checkExit: 1, checkSays: "missing or new", lostSays: fmt.Sprintf("%d events kept", n), leases: n},
			{name: "file truncated", file: file, size: 12 << 10, checkExit: 1, checkSays: "truncated", lostSays: fmt.Sprintf("%d events kept", n), leases: n},
		})
	})
}

// TestLedgerCheckJSON: `ledger check --json` and `ledger recover --json`
// on a sound ledger give each list as [] when it holds nothing (missing
// events, damage, drops were null) and a journal segment's fields in the
// keys the rest of the output uses (they were File, First, Last, End).
func TestLedgerCheckJSON(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "a.txt", "--as", "alice")
	r.stopServer()
	var check map[string]any
	mustJSON(t, r.mustLG("ledger", "check", "--json"), &check)
	for _, k := range []string{"missing_seqs", "damage", "journal_segments"} {
		if _, ok := check[k].([]any); !ok {
			t.Errorf("ledger check --json: %s = %v, want a list", k, check[k])
		}
	}
	segs, _ := check["journal_segments"].([]any)
	if len(segs) == 0 {
		t.Fatalf("ledger check --json has no journal segment: %v", check)
	}
	seg, _ := segs[0].(map[string]any)
	for _, k := range []string{"file", "first_seq", "last_seq", "end"} {
		if _, ok := seg[k]; !ok {
			t.Errorf("ledger check --json: a journal segment %v has no %q", seg, k)
		}
	}
	var rec map[string]any
	mustJSON(t, r.mustLG("ledger", "recover", "--json"), &rec)
	for _, k := range []string{"missing_seqs", "dropped", "originals"} {
		if _, ok := rec[k].([]any); !ok {
			t.Errorf("ledger recover --json: %s = %v, want a list", k, rec[k])
		}
	}
}
