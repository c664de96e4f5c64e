package integration_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMkdirPLeavesItsParentsFree: `mkdir -p a/b/new` calls mkdir on each
// directory along the way, and the kernel fails those that exist with
// EEXIST, changing nothing. Such a mkdir neither leases the existing
// directory's whole subtree to the worker (every file beneath it, thousands
// in a real tree, would wait for that worker) nor leases its name.
func TestMkdirPLeavesItsParentsFree(t *testing.T) {
	r := newRepo(t, map[string]string{"docs/a.txt": "a\n", "docs/b.txt": "b\n"})
	alice := r.worker("alice", "mkdir -p docs/new/deep && touch docs/new/deep/x && mkdir docs; echo mkdir=$? && touch alice.done && sleep 8")
	eventually(t, 10*time.Second, "alice's mkdir -p", func() bool { _, err := os.Stat(filepath.Join(r.dir, "alice.done")); return err == nil })
	if h := r.holders(); h["docs/**"] != "" || h["docs"] != "" || h["docs/new/**"] != "alice" {
		t.Errorf("leases after alice's mkdir -p docs/new/deep: %v, want docs/new/** alice's and none of docs or docs/**", h)
	}
	bob := r.worker("bob", "echo y >> docs/a.txt")
	if code := bob.wait(t, 10*time.Second); code != 0 || strings.Contains(bob.out.String(), "contention") {
		t.Errorf("bob's write of docs/a.txt beside alice's new directory: exit %d, want 0 at once; output:\n%s", code, bob.out)
	}
	checkNothingWaited(t, r, "docs/**", "alice's mkdir -p")
	r.mustLG("stop", "--as", "alice")
	alice.wait(t, 15*time.Second)
	if !strings.Contains(alice.out.String(), "mkdir=1") {
		t.Errorf("mkdir of the existing docs did not fail as mkdir does; output:\n%s", alice.out)
	}
}

// TestReusedInodeIsAnotherFile: `sed -i` replaces its file by renaming a
// new one over it, and the file system soon hands the old file's inode
// number to a file made later, another worker's temporary file in a busy
// tree. That file shares no data with the holder's: its writes meet no
// lease, though the lease records the old file's identity.
func TestReusedInodeIsAnotherFile(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	old := inode(t, filepath.Join(r.dir, "a.txt"))
	alice := r.worker("alice", "sed -i s/a/x/ a.txt && echo edited && sleep 20")
	eventually(t, 10*time.Second, "alice's sed -i", func() bool { return strings.Contains(alice.out.String(), "edited") })
	if inode(t, filepath.Join(r.dir, "a.txt")) == old {
		t.Fatal("sed -i kept a.txt's inode")
	}
	reuseInode(t, r.dir, old, "c.txt")
	bob := r.worker("bob", "echo y >> c.txt && echo wrote && sleep 20")
	eventually(t, 5*time.Second, "bob's write of c.txt", func() bool { return strings.Contains(bob.out.String(), "wrote") })
	if out := bob.out.String(); strings.Contains(out, "contention") {
		t.Errorf("bob's write of c.txt, a new file on a.txt's old inode, waited for alice:\n%s", out)
	}
	if h := r.holders(); h["c.txt"] != "bob" || h["a.txt"] != "alice" {
		t.Errorf("holders after bob's write: %v, want c.txt bob's and a.txt alice's", h)
	}
}

// inode returns the inode number of the file at p.
func inode(t testing.TB, p string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// reuseInode makes a file named name in dir whose inode number is ino,
// freed before: it makes files until the file system hands that number out
// again, and removes the others.
func reuseInode(t testing.TB, dir string, ino uint64, name string) {
	t.Helper()
	var made []string
	defer func() {
		for _, p := range made {
			_ = os.Remove(p)
		}
	}()
	for i := range 5000 {
		p := filepath.Join(dir, fmt.Sprintf(".reuse-%d", i))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if inode(t, p) == ino {
			if err := os.Rename(p, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			return
		}
		made = append(made, p)
	}
	t.Skipf("the file system did not hand inode %d out again in 5,000 files", ino)
}

// TestBlockerOnAnotherNameStaysHeld: a blocker on g.txt, a hard link to
// the f.txt alice holds, is not said free while she holds f.txt: resolve
// --retry would not grant it.
func TestBlockerOnAnotherNameStaysHeld(t *testing.T) {
	r := newRepo(t, map[string]string{"f.txt": "old\n", "x.txt": "x\n"})
	if err := os.Link(filepath.Join(r.dir, "f.txt"), filepath.Join(r.dir, "g.txt")); err != nil {
		t.Fatal(err)
	}
	r.worker("alice", "echo alice >> f.txt; sleep 60")
	eventually(t, 10*time.Second, "alice's lease on f.txt", func() bool { return r.holders()["f.txt"] == "alice" })
	r.worker("bob", "echo bob >> g.txt")
	id := waitBlockerFor(t, r, "bob", 10*time.Second+retryAfter)
	if rep := mustBlocker(t, r, id); !rep.FreeSince.IsZero() || rep.Holder.SameFileAs != "f.txt" {
		t.Errorf("blocker on g.txt while alice holds f.txt: free since %v, held as %q; want held, as f.txt", rep.FreeSince, rep.Holder.SameFileAs)
	}
	if out := r.mustLG("status"); strings.Contains(out, "will grant it") {
		t.Errorf("status says bob's blocker on g.txt will be granted while alice holds f.txt:\n%s", out)
	}
}

// TestKilledCommitLeavesNoLock: a worker's git holds .git/index.lock while
// it commits. When the worker's tree is killed with its sidecar (kill -9 of
// `leasegate run`, an operator's --abort), that git dies holding it, and
// every other git in the checkout would fail ("index.lock: File exists")
// until someone removed it by hand. The reaper removes a lock file that a
// process it killed held: open, named as its index (a hook's
// GIT_INDEX_FILE), or made and closed by a git it killed, which a commit
// does before it forks its hooks, when no process names the lock (the
// second hook makes that moment last).
func TestKilledCommitLeavesNoLock(t *testing.T) {
	for name, hook := range map[string]string{
		"named by the hook":   "sleep 60",
		"named by no process": "exec env -u GIT_INDEX_FILE sleep 60",
	} {
		t.Run(name, func(t *testing.T) {
			r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
			r.write(".git/hooks/pre-commit", "#!/bin/sh\n"+hook+"\n")
			if err := os.Chmod(filepath.Join(r.dir, ".git/hooks/pre-commit"), 0o755); err != nil {
				t.Fatal(err)
			}
			lock := filepath.Join(r.dir, ".git", "index.lock")
			alice := r.worker("alice", "echo x >> a.txt && git commit -qam alice")
			eventually(t, 10*time.Second, "alice's hook running", func() bool { return hookRunning(r.dir) })
			kill(alice.cmd.Process.Pid)
			eventually(t, 15*time.Second, "index.lock removed after alice's tree was killed", func() bool { _, err := os.Stat(lock); return os.IsNotExist(err) })
			if err := os.Remove(filepath.Join(r.dir, ".git/hooks/pre-commit")); err != nil {
				t.Fatal(err)
			}
			bob := r.worker("bob", "echo y >> b.txt && git commit -qm bob -- b.txt")
			if code := bob.wait(t, 10*time.Second); code != 0 {
				t.Errorf("bob's commit after alice's tree was killed: exit %d; output:\n%s", code, bob.out)
			}
		})
	}
}

// TestKilledCommitLeavesAnotherGitsLock: a lock file a killed git may have
// made stays while another git works in the same repository, which may be
// its maker: only a lock a killed process held open or named is surely
// the killed tree's.
func TestKilledCommitLeavesAnotherGitsLock(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.write(".git/hooks/pre-commit", "#!/bin/sh\nexec env -u GIT_INDEX_FILE sleep 60\n")
	if err := os.Chmod(filepath.Join(r.dir, ".git/hooks/pre-commit"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A git of the operator's, outside every worker, reading the
	// repository until its input ends.
	other := exec.Command("git", "cat-file", "--batch")
	other.Dir = r.dir
	in, err := other.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = other.Wait() })
	lock := filepath.Join(r.dir, ".git", "index.lock")
	alice := r.worker("alice", "echo x >> a.txt && git commit -qam alice")
	eventually(t, 10*time.Second, "alice's hook running", func() bool { return hookRunning(r.dir) })
	kill(alice.cmd.Process.Pid)
	eventually(t, 10*time.Second, "alice's tree ended", func() bool { return !hookRunning(r.dir) })
	time.Sleep(500 * time.Millisecond) // the reaper's last look, once its tree has ended
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("index.lock, possibly the other git's, was removed with alice's tree: %v", err)
	}
}

// hookRunning reports whether a pre-commit hook's sleep runs with its
// working directory in dir.
func hookRunning(dir string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "sleep" {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			return true
		}
	}
	return false
}
