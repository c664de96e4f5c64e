package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// TestNewDirShared: a directory one worker creates is its own whole until
// another worker makes a new name beneath it. Then the creator's lease
// narrows to the directory and what exists in it, the other worker's
// write goes through at once (no contention, no blocker), and the
// creator's files stay its own: the other worker's write of one is
// contention as ever.
func TestNewDirShared(t *testing.T) {
	tests := []newDirCase{
		{
			name:  "one directory each in a new one",
			alice: "mkdir -p own/a && echo a > own/a/f", bob: "mkdir -p own/b && echo b > own/b/g",
			holders: map[string]string{"own": "alice", "own/a/**": "alice", "own/b/**": "bob"},
			asked:   "own/b/**", contested: "own/a/f", bobs: "own/b/g",
		},
		{
			name:  "one file each in a new directory",
			alice: "mkdir docs/adr && echo 1 > docs/adr/001.md", bob: "echo 2 > docs/adr/002.md",
			holders: map[string]string{"docs/adr": "alice", "docs/adr/001.md": "alice", "docs/adr/002.md": "bob"},
			asked:   "docs/adr/002.md", contested: "docs/adr/001.md", bobs: "docs/adr/002.md",
		},
	}
	for _, g := range gates(t) {
		for _, tt := range tests {
			t.Run(g+"/"+tt.name, func(t *testing.T) { newDirShared(t, g, tt) })
		}
	}
}

// newDirCase is one case of TestNewDirShared.
type newDirCase struct {
	name       string
	alice, bob string            // what each makes
	holders    map[string]string // leases after both, path → holder
	asked      string            // the path bob's write asked for
	contested  string            // alice's file bob then writes
	bobs       string            // bob's file alice then writes
}

// newDirShared runs tt with both workers under gate g.
func newDirShared(t *testing.T, g string, tt newDirCase) {
	r := newGateRepo(t, g, map[string]string{"docs/index.md": "index\n"})
	tmp := t.TempDir()
	aliceOn, goOn, end := filepath.Join(tmp, "alice"), filepath.Join(tmp, "go"), filepath.Join(tmp, "end")
	alice := r.worker("alice", tt.alice+" && touch alice.done && "+waitFor(aliceOn)+"echo z >> "+tt.bobs+"; echo wrote=$?; "+waitFor(end))
	eventually(t, 10*time.Second, "alice's new directory", func() bool { return exists(r.dir, "alice.done") })
	before := r.read(tt.contested)
	bob := r.worker("bob", tt.bob+" && touch bob.done && "+waitFor(goOn)+"echo x >> "+tt.contested+"; echo wrote=$?")
	eventually(t, 10*time.Second, "bob's new name beneath alice's directory", func() bool { return exists(r.dir, "bob.done") })
	if out := bob.out.String(); strings.Contains(out, "contention") {
		t.Errorf("bob's %q waited for alice:\n%s", tt.bob, out)
	}
	checkNothingWaited(t, r, tt.asked, "bob's "+tt.bob)
	h := r.holders()
	for p, want := range tt.holders {
		if h[p] != want {
			t.Errorf("holder of %s = %q, want %s (leases %v)", p, h[p], want, h)
		}
	}
	if !hasEvent(r.history(tt.asked), gate.EventNarrowed) {
		t.Errorf("no lease.narrowed in the history of %s: %v", tt.asked, r.history(tt.asked))
	}

	// alice's sidecar no longer answers for own/ from memory: her write
	// of bob's new file is asked, and contended.
	touch(t, aliceOn)
	r.mustLG("resolve", waitBlockerFor(t, r, "alice", 20*time.Second), "--deny")
	eventually(t, 10*time.Second, "alice's refused write", func() bool { return strings.Contains(alice.out.String(), "wrote=") })
	if out := alice.out.String(); !strings.Contains(out, "contention: "+tt.bobs+" is held by bob") || strings.Contains(out, "wrote=0") {
		t.Errorf("alice's write of bob's %s: want contention with bob and a failed write; output:\n%s", tt.bobs, out)
	}

	touch(t, goOn)
	id := waitBlockerFor(t, r, "bob", 20*time.Second)
	r.mustLG("resolve", id, "--deny")
	bob.wait(t, 15*time.Second)
	if out := bob.out.String(); !strings.Contains(out, "contention: "+tt.contested+" is held by alice") || strings.Contains(out, "wrote=0") {
		t.Errorf("bob's write of alice's %s: want contention with alice and a failed write; output:\n%s", tt.contested, out)
	}
	if got := r.read(tt.contested); got != before {
		t.Errorf("%s = %q after bob's refused write, want %q", tt.contested, got, before)
	}
	touch(t, end)
	alice.wait(t, 15*time.Second)
}

// fifoReaders counts the processes named comm that hold the FIFO at path
// open.
func fifoReaders(path, comm string) int {
	n := 0
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		name, err := os.ReadFile(filepath.Join("/proc", p.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(name)) != comm {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join("/proc", p.Name(), "fd", fd.Name())); err == nil && target == path {
				n++
				break
			}
		}
	}
	return n
}

// exists reports whether rel exists beneath dir.
func exists(dir, rel string) bool {
	_, err := os.Stat(filepath.Join(dir, rel))
	return err == nil
}

// TestNewDirCrowd: workers running `mkdir -p own/$NAME` at once into a
// fresh own/ all make their directories and files without waiting: all
// but one find own being made by another worker (EEXIST once it is
// there), and the first new name beneath it narrows its creator's lease.
// Before, every worker but the first halted on a blocker.
func TestNewDirCrowd(t *testing.T) {
	const workers = 12
	r := newRepo(t, map[string]string{"README.md": "x\n"})
	tmp := t.TempDir()
	start, end := filepath.Join(tmp, "start"), filepath.Join(tmp, "end")
	if err := syscall.Mkfifo(start, 0o600); err != nil {
		t.Fatal(err)
	}
	ws := make([]*worker, workers)
	for i := range ws {
		name := fmt.Sprintf("w%02d", i)
		ws[i] = r.worker(name, "touch "+filepath.Join(tmp, name)+" && cat "+start+" && "+
			"mkdir -p own/"+name+" && echo "+name+" > own/"+name+"/f && touch own/"+name+"/done && "+waitFor(end))
	}
	eventually(t, 30*time.Second, "every worker running", func() bool {
		for i := range ws {
			if !exists(tmp, fmt.Sprintf("w%02d", i)) {
				return false
			}
		}
		return true
	})
	// Every worker's cat reads the FIFO start until it ends; closing it once
	// every cat has it open lets them all go on to mkdir own at once. A
	// worker whose cat opened it only after the close would wait for ever
	// (on a loaded machine a worker can be seconds between its touch and
	// its open), so the close waits for each cat to hold it.
	f, err := os.OpenFile(start, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "every worker reading start", func() bool { return fifoReaders(start, "cat") == workers })
	f.Close()
	eventually(t, 30*time.Second, "every worker's own/$NAME/done", func() bool {
		for i := range ws {
			if !exists(r.dir, fmt.Sprintf("own/w%02d/done", i)) {
				return false
			}
		}
		return true
	})
	st := r.status()
	if len(st.Contentions) != 0 || len(r.openBlockers()) != 0 {
		t.Errorf("contentions %v and open blockers %v, want none", st.Contentions, r.openBlockers())
	}
	h := r.holders()
	for i := range ws {
		name := fmt.Sprintf("w%02d", i)
		if h["own/"+name+"/**"] != name && h["own/"+name+"/f"] != name {
			t.Errorf("own/%s is not %s's: leases %v", name, name, h)
		}
	}
	touch(t, end)
	for _, w := range ws {
		if code := w.wait(t, 20*time.Second); code != 0 {
			t.Errorf("worker exit %d; output:\n%s", code, w.out)
		}
	}
}
