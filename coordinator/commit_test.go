package coordinator_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// gitRepo makes an empty git repository in a temp dir and returns its
// root with symlinks resolved.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "init", "-q")
	return dir
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	runGitEnv(t, dir, nil, args...)
}

// runGitAt runs git with its commits dated at when, author and committer.
func runGitAt(t *testing.T, dir string, when time.Time, args ...string) {
	t.Helper()
	date := when.Format(time.RFC3339)
	runGitEnv(t, dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, args...)
}

func runGitEnv(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// committedRepo makes a git repository whose first commit, an hour
// before the coordinator's epoch (so before any lease), holds files, each
// with its name as its content.
func committedRepo(t *testing.T, files ...string) string {
	t.Helper()
	repo := gitRepo(t)
	for _, name := range files {
		writeFile(t, repo, name, name+"\n")
	}
	runGit(t, repo, "add", ".")
	runGitAt(t, repo, epoch.Add(-time.Hour), "commit", "-q", "-m", "initial")
	return repo
}

// mustReleaseCommitted releases owner's committed files and returns the
// paths of the released leases.
func mustReleaseCommitted(t *testing.T, e *env, owner string) []string {
	t.Helper()
	released, err := e.c.ReleaseCommitted(e.ctx, owner)
	if err != nil {
		t.Fatalf("ReleaseCommitted(%s) = %v", owner, err)
	}
	var got []string
	for _, l := range released {
		got = append(got, l.Scope.Paths...)
	}
	return got
}

// TestReleaseCommitted: after a commit, the committer's auto leases on
// committed files that are clean again are released; a committed file
// changed since stays leased, a check-out of a committed file stays (it
// ends by check-in), and other owners' leases are untouched.
func TestReleaseCommitted(t *testing.T) {
	repo := gitRepo(t)
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Workspace = repo })
		e.mutate("alice", "a.txt", "b.txt", "uncommitted.txt")
		e.mutate("bob", "c.txt")
		if _, err := e.c.Lease(e.ctx, leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: "alice"},
			Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{"d.txt"}}}); err != nil {
			t.Fatalf("Lease(acquire alice d.txt) = %v", err)
		}
		for _, name := range []string{"a.txt", "b.txt", "c.txt", "d.txt", "uncommitted.txt"} {
			writeFile(t, repo, name, name+" v1\n")
		}
		runGit(t, repo, "add", "a.txt", "b.txt", "c.txt", "d.txt")
		runGit(t, repo, "commit", "-q", "-m", "work")
		writeFile(t, repo, "b.txt", "b.txt v2, still being changed\n")

		if got := mustReleaseCommitted(t, e, "alice"); !slices.Equal(got, []string{"a.txt"}) {
			t.Fatalf("ReleaseCommitted(alice) released %q, want [a.txt]", got)
		}
		if got, want := e.held("alice", gate.KindAuto), []string{"b.txt", "uncommitted.txt"}; !slices.Equal(got, want) {
			t.Fatalf("alice holds %q after the commit, want %q", got, want)
		}
		if got := e.held("alice", gate.KindCheckout); !slices.Equal(got, []string{"d.txt"}) {
			t.Fatalf("alice's check-outs after the commit: %q, want d.txt", got)
		}
		if got := e.held("bob", gate.KindAuto); !slices.Equal(got, []string{"c.txt"}) {
			t.Fatalf("bob holds %q after alice's commit release, want c.txt", got)
		}
		rel := e.events(gate.EventReleased)
		if len(rel) != 1 || rel[0].Actor != "alice" || !strings.HasPrefix(rel[0].Reason, "committed in ") {
			t.Fatalf("release events %+v, want one by alice naming the commit", rel)
		}
	})
}

// TestReleaseCommittedSinceLeased: the files of every commit on HEAD's
// first-parent line made since the owner's leases were taken count as
// committed, not only HEAD's: a rebase or a cherry-picked range commits
// several in a row, and a merge commit's files are those it changed from
// its first parent. A clean file changed only by a commit older than the
// lease stays leased.
func TestReleaseCommittedSinceLeased(t *testing.T) {
	repo := gitRepo(t)
	for _, name := range []string{"a.txt", "b.txt", "m.txt", "old.txt"} {
		writeFile(t, repo, name, name+" v0\n")
	}
	runGit(t, repo, "add", ".")
	runGitAt(t, repo, epoch.Add(-2*time.Hour), "commit", "-q", "-m", "initial")
	writeFile(t, repo, "old.txt", "old.txt v1\n")
	runGitAt(t, repo, epoch.Add(-time.Hour), "commit", "-q", "-am", "before the lease")
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Workspace = repo })
		e.mutate("alice", "a.txt", "b.txt", "m.txt", "old.txt")
		writeFile(t, repo, "a.txt", "a.txt v1\n")
		runGitAt(t, repo, epoch.Add(time.Minute), "commit", "-q", "-am", "a")
		writeFile(t, repo, "b.txt", "b.txt v1\n")
		runGitAt(t, repo, epoch.Add(2*time.Minute), "commit", "-q", "-am", "b")
		runGit(t, repo, "checkout", "-q", "-b", "side", "HEAD~2")
		writeFile(t, repo, "m.txt", "m.txt v1\n")
		runGitAt(t, repo, epoch.Add(3*time.Minute), "commit", "-q", "-am", "m")
		runGit(t, repo, "checkout", "-q", "-")
		runGitAt(t, repo, epoch.Add(4*time.Minute), "merge", "-q", "--no-ff", "-m", "merge side", "side")

		if got, want := mustReleaseCommitted(t, e, "alice"), []string{"a.txt", "b.txt", "m.txt"}; !slices.Equal(got, want) {
			t.Fatalf("ReleaseCommitted(alice) released %q, want %q", got, want)
		}
		if got := e.held("alice", gate.KindAuto); !slices.Equal(got, []string{"old.txt"}) {
			t.Fatalf("alice holds %q after the commits, want [old.txt]", got)
		}
	})
}

// TestReleaseCommittedSubtree: a directory a worker made is leased whole
// (dir/**); once what it put there is committed and nothing beneath is
// dirty, the commit releases it like a file. One with an uncommitted file
// beneath, or with nothing committed beneath, stays leased.
func TestReleaseCommittedSubtree(t *testing.T) {
	repo := committedRepo(t, "README")
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Workspace = repo })
		e.mutate("alice", "newpkg/**")
		e.mutate("alice", "half/**")
		e.mutate("alice", "empty/**")
		for _, dir := range []string{"newpkg/sub", "half", "empty"} {
			if err := os.MkdirAll(filepath.Join(repo, dir), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		writeFile(t, repo, "newpkg/a.txt", "a\n")
		writeFile(t, repo, "newpkg/sub/b.txt", "b\n")
		writeFile(t, repo, "half/c.txt", "c\n")
		writeFile(t, repo, "half/d.txt", "d, not committed yet\n")
		runGit(t, repo, "add", "newpkg", "half/c.txt")
		runGitAt(t, repo, epoch.Add(time.Minute), "commit", "-q", "-m", "new packages")

		if got, want := mustReleaseCommitted(t, e, "alice"), []string{"newpkg/**"}; !slices.Equal(got, want) {
			t.Fatalf("ReleaseCommitted(alice) released %q, want %q", got, want)
		}
		if got, want := e.held("alice", gate.KindAuto), []string{"empty/**", "half/**"}; !slices.Equal(got, want) {
			t.Fatalf("alice holds %q after the commit, want %q", got, want)
		}
	})
}

// TestReleaseCommittedVanishedName: the temporary name an atomic save
// wrote and renamed onto the file (sed -i, an editor, os.replace) is gone
// once the file is saved; a commit releases its lease with the file's, so
// the next save of the same file through the same name waits for no one.
// A tracked file the owner removed and has not committed stays leased.
func TestReleaseCommittedVanishedName(t *testing.T) {
	repo := committedRepo(t, "f.txt", "gone.txt")
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Workspace = repo })
		e.mutate("alice", "f.txt.tmp")
		e.mutate("alice", "f.txt")
		e.mutate("alice", "gone.txt")
		writeFile(t, repo, "f.txt.tmp", "f v1\n")
		if err := os.Rename(filepath.Join(repo, "f.txt.tmp"), filepath.Join(repo, "f.txt")); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(repo, "gone.txt")); err != nil {
			t.Fatal(err)
		}
		runGitAt(t, repo, epoch.Add(time.Minute), "commit", "-q", "-m", "f", "f.txt")

		got := mustReleaseCommitted(t, e, "alice")
		slices.Sort(got)
		if want := []string{"f.txt", "f.txt.tmp"}; !slices.Equal(got, want) {
			t.Fatalf("ReleaseCommitted(alice) released %q, want %q", got, want)
		}
		if got := e.held("alice", gate.KindAuto); !slices.Equal(got, []string{"gone.txt"}) {
			t.Fatalf("alice holds %q after the commit, want [gone.txt]", got)
		}
	})
}

// TestReleaseCommittedNeedsWorkspace: without a workspace there is no
// commit to look at, and nothing is released.
func TestReleaseCommittedNeedsWorkspace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.mutate("alice", "a.txt")
		if ls, err := e.c.ReleaseCommitted(e.ctx, "alice"); err == nil || len(ls) != 0 {
			t.Fatalf("ReleaseCommitted without a workspace = %v, %v; want an error", ls, err)
		}
		if got := e.held("alice", gate.KindAuto); len(got) != 1 {
			t.Fatalf("alice holds %q, want a.txt", got)
		}
	})
}

// TestReleaseCommittedInSubmodule: a commit made in a submodule releases
// the committer's leases on the files it committed, named from the
// superproject's root, by the submodule's HEAD and status; a file of the
// submodule still changed stays leased.
func TestReleaseCommittedInSubmodule(t *testing.T) {
	lib := gitRepo(t)
	writeFile(t, lib, "x.txt", "x\n")
	writeFile(t, lib, "y.txt", "y\n")
	runGit(t, lib, "add", ".")
	runGit(t, lib, "commit", "-q", "-m", "lib")
	repo := gitRepo(t)
	runGit(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "sub")
	runGit(t, repo, "commit", "-q", "-m", "sub")
	sub := filepath.Join(repo, "sub")
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, func(c *coordinator.Config) { c.Workspace = repo })
		e.mutate("alice", "sub/x.txt", "sub/y.txt")
		writeFile(t, sub, "x.txt", "x v2\n")
		writeFile(t, sub, "y.txt", "y v2, still being changed\n")
		runGit(t, sub, "commit", "-q", "-m", "x", "x.txt")

		if got := mustReleaseCommitted(t, e, "alice"); !slices.Equal(got, []string{"sub/x.txt"}) {
			t.Fatalf("ReleaseCommitted(alice) released %q, want [sub/x.txt]", got)
		}
		if got := e.held("alice", gate.KindAuto); !slices.Equal(got, []string{"sub/y.txt"}) {
			t.Fatalf("alice holds %q after the commit, want [sub/y.txt]", got)
		}
		rel := e.events(gate.EventReleased)
		if len(rel) != 1 || !strings.HasPrefix(rel[0].Reason, "committed in ") || !strings.HasSuffix(rel[0].Reason, " of sub") {
			t.Fatalf("release events %+v, want one naming the submodule's commit", rel)
		}
	})
}
