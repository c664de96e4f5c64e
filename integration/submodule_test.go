package integration_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// newSuperproject makes a checkout with the submodule "sub" (a repository
// holding files) and starts the superproject's coordinator. It returns
// the superproject and a view of the submodule: the same coordinator and
// client, commands run in the submodule's checkout.
func newSuperproject(t *testing.T, files map[string]string) (super, sub *repo) {
	t.Helper()
	lib := newCheckout(t, files)
	super = newCheckout(t, nil)
	super.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.dir, "sub")
	super.git("commit", "-qm", "add sub")
	super.startServer(retryAfter, idleAfter)
	sub = &repo{t: t, dir: filepath.Join(super.dir, "sub"), env: super.env, client: super.client, log: &bytes.Buffer{}}
	return super, sub
}

// TestSubmoduleOneOwner: a worker started in the superproject and one
// started inside its submodule race for sub/x.txt through one
// coordinator: the second is held and told who holds it, a blocker names
// the holder, and status from either checkout shows the one table.
func TestSubmoduleOneOwner(t *testing.T) {
	super, sub := newSuperproject(t, map[string]string{"x.txt": "x\n"})
	alice := super.worker("alice", "echo a >> sub/x.txt && sleep 30")
	eventually(t, 8*time.Second, "alice's lease on sub/x.txt", func() bool {
		return super.holders()["sub/x.txt"] == "alice"
	})
	bob := sub.worker("bob", "echo b >> x.txt")
	id := waitBlockerFor(t, super, "bob", 20*time.Second)
	if rep := mustBlocker(t, super, id); rep.Holder.Owner.Name != "alice" {
		t.Fatalf("blocker %s names holder %s, want alice", id, rep.Holder.Owner.Name)
	}
	if out := bob.out.String(); !strings.Contains(out, "sub/x.txt is held by alice") {
		t.Errorf("bob was not told alice holds sub/x.txt:\n%s", out)
	}
	for _, r := range []*repo{super, sub} {
		if out := r.mustLG("status"); !strings.Contains(out, "workspace "+super.dir+"\n") || !strings.Contains(out, "sub/x.txt") {
			t.Errorf("status in %s does not show the superproject's table:\n%s", r.dir, out)
		}
	}
	if _, errs, code := super.lg("--workspace", sub.dir, "status"); code != 0 || !strings.Contains(errs, "using its superproject's workspace "+super.dir) {
		t.Errorf("status --workspace %s: exit %d, stderr %q; want the superproject's workspace, said", sub.dir, code, errs)
	}
	denyUntilDone(t, super, bob, id, "bob")
	if got := sub.read("x.txt"); got != "x\na\n" {
		t.Errorf("sub/x.txt = %q, want only alice's write", got)
	}
	_ = alice.cmd.Process.Kill()
	var granted int
	for _, e := range super.history("sub/x.txt") {
		if e.Type == gate.EventGranted {
			granted++
		}
	}
	if granted != 1 {
		t.Errorf("sub/x.txt granted %d times, want once", granted)
	}
}

// TestSubmoduleCommitReleases: a worker started inside the submodule
// commits there; the sidecar sees the submodule's branch move and the
// coordinator releases the committed, clean sub/x.txt, keeping sub/y.txt
// the worker still changes.
func TestSubmoduleCommitReleases(t *testing.T) {
	super, sub := newSuperproject(t, map[string]string{"x.txt": "x\n", "y.txt": "y\n"})
	end := filepath.Join(t.TempDir(), "end")
	w := sub.worker("alice", "echo a >> x.txt && echo b >> y.txt && git add x.txt && git commit -qm x && "+waitFor(end))
	eventually(t, 8*time.Second, "the release of committed sub/x.txt", func() bool {
		h := super.holders()
		return h["sub/x.txt"] == "" && h["sub/y.txt"] == "alice"
	})
	touch(t, end)
	if code := w.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("worker exit %d; output:\n%s", code, w.out)
	}
	var released bool
	for _, e := range super.history("sub/x.txt") {
		released = released || (e.Type == gate.EventReleased && strings.HasPrefix(e.Reason, "committed in ") && strings.HasSuffix(e.Reason, " of sub"))
	}
	if !released {
		t.Errorf("history of sub/x.txt has no release naming the submodule's commit: %+v", super.history("sub/x.txt"))
	}
}

// TestSubmoduleGitGuard: `install git` run inside the submodule installs
// the guard where git runs the submodule's hooks and the superproject's
// too; a commit in the submodule of a file another owner holds is refused,
// naming it from the superproject's root, and its holder may commit it.
func TestSubmoduleGitGuard(t *testing.T) {
	super, sub := newSuperproject(t, map[string]string{"x.txt": "x\n"})
	sub.mustLG("install", "git")
	for _, hook := range []string{
		filepath.Join(super.dir, ".git", "hooks", "pre-commit"),
		filepath.Join(super.dir, ".git", "modules", "sub", "hooks", "pre-commit"),
	} {
		if data, err := os.ReadFile(hook); err != nil || !strings.Contains(string(data), "hook git-pre-commit") {
			t.Errorf("%s: %v, want leasegate's guard", hook, err)
		}
	}
	doctorMissing := func() []string {
		out, _, _ := super.lg("doctor", "--json")
		var d struct {
			Missing []string `json:"git_hooks_missing_in"`
		}
		mustJSON(t, out, &d)
		return d.Missing
	}
	if got := doctorMissing(); len(got) != 0 {
		t.Errorf("doctor says the git hooks are missing in %q after install, want nowhere", got)
	}
	if err := os.Remove(filepath.Join(super.dir, ".git", "modules", "sub", "hooks", "post-commit")); err != nil {
		t.Fatal(err)
	}
	if got := doctorMissing(); !slices.Equal(got, []string{sub.dir}) {
		t.Errorf("doctor says the git hooks are missing in %q, want [%s]", got, sub.dir)
	}
	super.mustLG("acquire", "--as", "carol", "sub/x.txt")
	sub.write("x.txt", "x by dave\n")
	sub.git("add", "x.txt")
	commit := func(as string) (string, error) {
		cmd := exec.Command("git", "commit", "-qm", "x")
		cmd.Dir, cmd.Env = sub.dir, append(slices.Clone(sub.env), "LEASEGATE_AS="+as)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := commit("dave"); err == nil || !strings.Contains(out, "sub/x.txt: leased by carol") {
		t.Fatalf("dave's commit in the submodule: %v, want it refused naming sub/x.txt and carol:\n%s", err, out)
	}
	if out, err := commit("carol"); err != nil {
		t.Fatalf("carol's commit of the file she holds: %v\n%s", err, out)
	}
}

// TestSubmoduleStartsSuperprojectCoordinator: with no coordinator
// running, a command inside the submodule starts the superproject's, at
// its socket, and leases the file by its name from the superproject's
// root; a command in the superproject then finds that lease.
func TestSubmoduleStartsSuperprojectCoordinator(t *testing.T) {
	lib := newCheckout(t, map[string]string{"x.txt": "x\n"})
	super := newCheckout(t, nil)
	super.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.dir, "sub")
	super.git("commit", "-qm", "add sub")
	sub := &repo{t: t, dir: filepath.Join(super.dir, "sub"), env: super.env, log: &bytes.Buffer{}}
	t.Cleanup(func() { super.lg("serve", "--stop", "--force") })
	sub.mustLG("acquire", "--as", "carol", "x.txt")
	if _, err := os.Stat(filepath.Join(super.dir, ".git", "leasegate", "coord.sock")); err != nil {
		t.Errorf("the superproject's socket: %v", err)
	}
	if _, err := os.Stat(filepath.Join(super.dir, ".git", "modules", "sub", "leasegate")); err == nil {
		t.Error("the submodule has a state directory of its own")
	}
	if out, errs, code := super.lg("acquire", "--as", "dave", "sub/x.txt"); code == 0 || !strings.Contains(out+errs, "carol") {
		t.Errorf("dave's acquire of sub/x.txt in the superproject: exit %d, %s%s; want it refused naming carol", code, out, errs)
	}
}
