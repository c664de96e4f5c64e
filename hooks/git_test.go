package hooks_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/hooks"
)

// foreignHook is a pre-commit hook a repository already has; it leaves a
// trace so a test sees that it still runs.
const foreignHook = "#!/bin/sh\necho \"foreign pre-commit ran $#\" >> \"$(git rev-parse --git-dir)/foreign.log\"\n"

func (r *repo) hooksDir() string {
	r.t.Helper()
	d, err := hooks.GitHooksDir(context.Background(), r.root)
	if err != nil {
		r.t.Fatal(err)
	}
	return d
}

func (r *repo) commit(extraEnv []string, args ...string) result {
	r.t.Helper()
	return r.exec(extraEnv, "", "git", append([]string{"commit", "-q", "-m", "change"}, args...)...)
}

func TestGitGuardRefusesFilesHeldByOthers(t *testing.T) {
	r := newRepo(t)
	r.write("src/app.go", "package src\n")
	r.git("add", ".")
	r.git("commit", "-q", "-m", "app")
	writeFile(t, filepath.Join(r.hooksDir(), "pre-commit"), foreignHook, 0o755)
	r.serve()
	r.mustLeasegate("install", "git")
	r.mustLeasegate("acquire", "--as", "bob", "src/app.go")
	foreignLog := filepath.Join(r.root, ".git", "foreign.log")

	r.write("src/app.go", "package src // alice\n")
	r.git("add", "src/app.go")
	got := r.commit([]string{"LEASEGATE_AS=alice"})
	if got.code != 1 || !strings.Contains(got.stderr, "leasegate: commit refused: 1 staged file(s) are leased by another owner (committing as alice):") ||
		!strings.Contains(got.stderr, "  src/app.go: leased by bob (checkout lease ") {
		t.Errorf("commit as alice of a file bob holds = %+v, want exit 1 naming src/app.go and bob", got)
	}
	if _, err := os.Stat(foreignLog); err == nil {
		t.Errorf("the chained hook ran although leasegate refused the commit")
	}

	r.git("reset", "-q")
	got = r.commit([]string{"LEASEGATE_AS=alice"}, "-a")
	if got.code != 1 || !strings.Contains(got.stderr, "src/app.go: leased by bob") {
		t.Errorf("commit -a (a temporary index) as alice = %+v, want the same refusal", got)
	}
	if got = r.commit(nil, "-a"); got.code != 1 || !strings.Contains(got.stderr, "the committer is unknown") {
		t.Errorf("commit -a with no committer = %+v, want a refusal", got)
	}

	if got = r.commit([]string{"LEASEGATE_AS=bob"}, "-a"); got.code != 0 {
		t.Errorf("commit -a as bob, the holder = %+v, want success", got)
	}
	if log := readFile(t, foreignLog); log != "foreign pre-commit ran 0\n" {
		t.Errorf("the existing pre-commit hook logged %q, want one run", log)
	}

	r.write("free.txt", "nobody holds this\n")
	r.git("add", "free.txt")
	if got = r.commit(nil); got.code != 0 {
		t.Errorf("commit of a free file = %+v, want success", got)
	}

	r.mustLeasegate("acquire", "--as", "bob", "docs/**")
	r.write("docs/guide.md", "guide\n")
	r.git("add", "docs")
	if got = r.commit([]string{"LEASEGATE_AS=alice"}); got.code != 1 || !strings.Contains(got.stderr, "  docs/guide.md: leased by bob (checkout lease ") {
		t.Errorf("commit as alice under bob's docs/** check-out = %+v, want a refusal naming docs/guide.md", got)
	}
}

func TestGitPostCommitReleasesTheCommittersLeases(t *testing.T) {
	r := newRepo(t)
	r.serve()
	r.mustLeasegate("install", "git")
	sameOutput(t, "session S writes src/app.go", r.hook(hooks.ClaudeCode, "pretooluse-write.json", "S"), allow)
	r.write("src/app.go", "package src\n")
	r.write("src/app_test.go", "package src\n")
	r.git("add", "src")
	if got := r.commit([]string{"CLAUDE_CODE_SESSION_ID=S"}); got.code != 0 {
		t.Fatalf("commit by the session = %+v", got)
	}
	if h := r.holders(); len(h) != 0 {
		t.Errorf("holders after the session's commit = %v, want none (released on commit)", h)
	}
}

// hookFiles reads every file of dir with its mode.
func hookFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fi.Mode().String() + "\n" + readFile(t, filepath.Join(dir, e.Name()))
	}
	return out
}

func TestGitInstallIsIdempotentAndUninstallRestores(t *testing.T) {
	r := newRepo(t)
	hd := r.hooksDir()
	writeFile(t, filepath.Join(hd, "pre-commit"), foreignHook, 0o750)
	before := hookFiles(t, hd)

	r.mustLeasegate("install", "git")
	once := hookFiles(t, hd)
	if want := before["pre-commit"]; once["pre-commit"+hooks.ChainedSuffix] != want {
		t.Errorf("install did not move the existing hook aside unchanged: %q", once["pre-commit"+hooks.ChainedSuffix])
	}
	for _, name := range []string{"pre-commit", "post-commit"} {
		if !strings.Contains(once[name], leasegateBin+" hook git-"+name) || !strings.HasPrefix(once[name], "-rwxr-xr-x\n#!/bin/sh\n") {
			t.Errorf("installed %s =\n%s", name, once[name])
		}
	}
	if out := r.mustLeasegate("install", "git"); !strings.Contains(out, "already installed") {
		t.Errorf("second install printed %q", out)
	}
	if twice := hookFiles(t, hd); !maps.Equal(twice, once) {
		t.Errorf("second install changed the hooks:\n%v\nwant\n%v", twice, once)
	}

	r.mustLeasegate("uninstall", "git")
	if after := hookFiles(t, hd); !maps.Equal(after, before) {
		t.Errorf("uninstall left\n%v\nwant\n%v", after, before)
	}
}

func TestGitInstallRespectsHooksPath(t *testing.T) {
	r := newRepo(t)
	r.git("config", "core.hooksPath", ".githooks")
	r.mustLeasegate("install", "git")
	hd := filepath.Join(r.root, ".githooks")
	if got := r.hooksDir(); got != hd {
		t.Fatalf("GitHooksDir() = %s, want %s", got, hd)
	}
	names := slices.Sorted(maps.Keys(hookFiles(t, hd)))
	if !slices.Equal(names, []string{".leasegate-created", "post-commit", "post-merge", "pre-commit", "pre-merge-commit"}) {
		t.Errorf("files in core.hooksPath after install = %q", names)
	}
	r.mustLeasegate("uninstall", "git")
	if _, err := os.Stat(hd); !os.IsNotExist(err) {
		t.Errorf("uninstall kept the hooks directory it created: %v", err)
	}
}

// TestGitGuardRefusesMergeCommit: git merge makes its commit without
// running pre-commit; the guard runs as its pre-merge-commit hook too, so
// a merge that brings in a change to a file another owner holds is refused
// like a commit of it, and HEAD stays where it was.
func TestGitGuardRefusesMergeCommit(t *testing.T) {
	r := newRepo(t)
	r.write("src/app.go", "package src\n")
	r.git("add", ".")
	r.git("commit", "-q", "-m", "app")
	r.git("checkout", "-q", "-b", "side")
	r.write("src/app.go", "package src // side\n")
	r.git("commit", "-q", "-am", "side")
	r.git("checkout", "-q", "-")
	r.write("README", "main moves on\n")
	r.git("add", "README")
	r.git("commit", "-q", "-m", "main")
	head := r.git("rev-parse", "HEAD")
	r.serve()
	r.mustLeasegate("install", "git")
	r.mustLeasegate("acquire", "--as", "bob", "src/app.go")

	got := r.exec([]string{"LEASEGATE_AS=alice"}, "", "git", "merge", "--no-ff", "-m", "merge side", "side")
	if got.code == 0 || !strings.Contains(got.stderr, "leasegate: commit refused: 1 staged file(s) are leased by another owner (committing as alice):") ||
		!strings.Contains(got.stderr, "src/app.go: leased by bob") {
		t.Errorf("merge as alice of a change to a file bob holds = %+v, want refused naming src/app.go and bob", got)
	}
	if now := r.git("rev-parse", "HEAD"); now != head {
		t.Errorf("HEAD moved to %s after the refused merge, want %s", now, head)
	}
}

// TestGitInstallSaysHooksInWorkingTree: a core.hooksPath inside the
// working tree (husky's .husky, committed with the repository) gets the
// hooks too, and install says that git status now shows them there,
// naming each, and how to gate every clone's commits instead; with the
// hooks in .git/hooks it says nothing of the kind.
func TestGitInstallSaysHooksInWorkingTree(t *testing.T) {
	r := newRepo(t)
	if out := r.mustLeasegate("install", "git"); strings.Contains(out, "working tree") {
		t.Errorf("install git into .git/hooks said:\n%s", out)
	}
	r.mustLeasegate("uninstall", "git")
	writeFile(t, filepath.Join(r.root, ".husky", "pre-commit"), foreignHook, 0o755)
	r.git("add", ".husky")
	r.git("commit", "-q", "-m", "husky")
	r.git("config", "core.hooksPath", ".husky")
	out := r.mustLeasegate("install", "git")
	for _, want := range []string{"note: the hooks directory .husky (core.hooksPath) is in the working tree",
		".husky/pre-commit", ".husky/post-commit", ".husky/pre-commit" + hooks.ChainedSuffix, "leasegate hook git-pre-commit"} {
		if !strings.Contains(out, want) {
			t.Errorf("install git into .husky said\n%s\nwant it to say %q", out, want)
		}
	}
	r.mustLeasegate("uninstall", "git")
	if got := r.git("status", "--porcelain"); got != "" {
		t.Errorf("git status after uninstall = %q, want clean", got)
	}
}

func TestGitGuardFailsClosedWithoutCoordinator(t *testing.T) {
	r := newRepo(t) // no coordinator, and the hooks may not start one
	r.mustLeasegate("install", "git")
	r.write("a.txt", "a\n")
	r.git("add", "a.txt")
	got := r.commit(nil)
	want := "leasegate: commit refused: cannot check the commit against the leases: coordinator unavailable: no coordinator answers at " +
		r.root + "/.git/leasegate/coord.sock\n"
	if got.code != 1 || got.stderr != want {
		t.Errorf("commit without a coordinator = %+v, want exit 1 and %q", got, want)
	}
}

// TestGitGuardFoldsCase: where the workspace's volume folds case, the
// guard takes a staged path for every spelling of it: docs/a.md is under
// another owner's check-out of Docs/**, and SRC/X.go is the src/x.go he
// holds. The leases are a real coordinator's; the folding is given, as
// this volume does not fold.
func TestGitGuardFoldsCase(t *testing.T) {
	r := newRepo(t)
	r.serve()
	r.mustLeasegate("acquire", "--as", "bob", "Docs/**")
	r.mustLeasegate("acquire", "--as", "bob", "src/x.go")
	st := r.status()
	staged := []string{"docs/a.md", "SRC/X.go", "free.go"}
	var got []string
	for _, c := range hooks.Conflicts(st, staged, "alice", gate.FoldCase) {
		got = append(got, c.Path+" by "+c.Lease.Owner.Name)
	}
	if want := []string{"docs/a.md by bob", "SRC/X.go by bob"}; !slices.Equal(got, want) {
		t.Errorf("Conflicts(%q) as alice, folded = %q, want %q", staged, got, want)
	}
	if cs := hooks.Conflicts(st, staged, "bob", gate.FoldCase); len(cs) != 0 {
		t.Errorf("Conflicts(%q) as bob, the holder = %v, want none", staged, cs)
	}
	if cs := hooks.Conflicts(st, staged, "alice", gate.ExactCase); len(cs) != 0 {
		t.Errorf("Conflicts(%q) as alice, exact case = %v, want none: no lease is on these spellings", staged, cs)
	}
}

// TestCommitRefusalQuotesPaths: the guard's refusal, which git prints on
// the committer's terminal, shows a staged file whose name holds a
// newline or an escape sequence quoted, so it can neither forge a line
// of the refusal nor drive the terminal.
func TestCommitRefusalQuotesPaths(t *testing.T) {
	lease := gate.Lease{ID: "01L", Owner: gate.Owner{Name: "alice"}, Kind: gate.KindCheckout}
	msg := (&hooks.CommitRefusedError{Conflicts: []hooks.Conflict{
		{Path: "nl\nx.txt", Lease: lease}, {Path: "e\x1b[31mred.txt", Lease: lease}, {Path: "plain.txt", Lease: lease},
	}}).Error()
	for _, want := range []string{`  "nl\nx.txt": leased by alice`, `  "e\x1b[31mred.txt": leased by alice`, "  plain.txt: leased by alice"} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "\x1b") || strings.Contains(msg, "nl\nx") {
		t.Errorf("refusal carries a control character of a file name raw:\n%q", msg)
	}
}

// TestGitInstallRefusesSharedHooksPath: a core.hooksPath from the user's
// git config is used by every repository without its own, so install
// refuses it, naming the file and the directory, and writes nothing
// there; once the repository has a hooks path of its own, install goes
// there. Uninstall is never refused.
func TestGitInstallRefusesSharedHooksPath(t *testing.T) {
	r := newRepo(t)
	shared := t.TempDir()
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte("[core]\n\thooksPath = "+shared+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withGlobal := []string{"GIT_CONFIG_GLOBAL=" + global}
	res := r.leasegate(withGlobal, "", "install", "git")
	if res.code != 1 || !strings.Contains(res.stderr, "core.hooksPath is set in your global git config ("+global+") to "+shared) {
		t.Errorf("install git with a global core.hooksPath: exit %d, want 1 naming the file and the directory\n%s%s", res.code, res.stdout, res.stderr)
	}
	if names := hookFiles(t, shared); len(names) != 0 {
		t.Errorf("install wrote %v into the shared hooks directory", slices.Sorted(maps.Keys(names)))
	}
	if res := r.leasegate(withGlobal, "", "uninstall", "git"); res.code != 0 {
		t.Errorf("uninstall git with a global core.hooksPath: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	r.git("config", "core.hooksPath", ".githooks")
	if res := r.leasegate(withGlobal, "", "install", "git"); res.code != 0 || !strings.Contains(res.stdout, filepath.Join(r.root, ".githooks", "pre-commit")) {
		t.Errorf("install git with the repository's own core.hooksPath: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}
