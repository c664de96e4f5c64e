package integration_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/intercept/fuse"
)

// nobody is uid and gid 65534, the user these tests drop to (CI runs as root).
const nobody = 65534

// nobodyBinary copies the test's binary where nobody can run it (the
// test's own temp directories are 0700) and returns the copy and the
// open directory that holds it.
func nobodyBinary(t *testing.T) (string, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("running the CLI as another user needs root")
	}
	open, err := os.MkdirTemp("", "leasegate-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(open) })
	os.Chmod(open, 0o755)
	nobodyBin := filepath.Join(open, "leasegate")
	if b, err := os.ReadFile(bin); err != nil || os.WriteFile(nobodyBin, b, 0o755) != nil {
		t.Fatalf("copy the binary: %v", err)
	}
	return nobodyBin, open
}

// asNobody runs the CLI as nobody in r's checkout, which it opens to
// nobody (its temp directories are 0700), and returns its output and
// exit code. git's safe.directory, in a global config of nobody's next to
// its binary, lets nobody read root's repository.
func (r *repo) asNobody(t *testing.T, nobodyBin string, args ...string) (string, int) {
	t.Helper()
	return r.asNobodyUnder(t, nil, nobodyBin, args...)
}

// asNobodyUnder is asNobody with the CLI run by the command under (as
// unshare -Ur).
func (r *repo) asNobodyUnder(t *testing.T, under []string, nobodyBin string, args ...string) (string, int) {
	t.Helper()
	gitconfig := filepath.Join(filepath.Dir(nobodyBin), "gitconfig")
	if err := os.WriteFile(gitconfig, []byte("[safe]\n\tdirectory = *\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Dir(r.dir), r.dir} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	argv := append(append(slices.Clone(under), nobodyBin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = r.dir
	cmd.Env = append(slices.Clone(r.env), "HOME=/", "GIT_CONFIG_GLOBAL="+gitconfig)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("leasegate %v as nobody: %v", args, err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// TestAnotherUsersCoordinator: on a checkout shared by two users, the one
// whose coordinator made the state directory is served; the other is told
// whose it is (exit 5) by every command, read-only ones included, and by
// doctor (its hooks there would refuse every write): never
// "no coordinator running (nothing is held)" while a lease is held, never
// a coordinator of its own, nothing of its worker run.
func TestAnotherUsersCoordinator(t *testing.T) {
	nobodyBin, open := nobodyBinary(t)
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "a.txt", "--as", "alice")
	const whose = "belongs to user root (uid 0)"
	ran := filepath.Join(open, "ran")
	for _, args := range [][]string{
		{"status"},
		{"blockers"},
		{"history"},
		{"acquire", "a.txt", "--as", "bob"},
		{"release", "a.txt", "--as", "alice"},
		{"serve", "--stop", "--force"},
		{"run", "--as", "bob", "--", "touch", ran},
	} {
		out, code := r.asNobody(t, nobodyBin, args...)
		if code != 5 || !strings.Contains(out, whose) || strings.Contains(out, "nothing is held") {
			t.Errorf("%v as nobody: exit %d, %q; want 5 saying the state directory %s", args, code, out, whose)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("nobody's worker ran")
	}
	if out, code := r.asNobody(t, nobodyBin, "ledger", "check"); code != 1 || !strings.Contains(out, "ledger check: "+r.dir+"/.git/leasegate "+whose) {
		t.Errorf("ledger check as nobody: exit %d, %q; want 1 saying whose the ledger is", code, out)
	}
	if out, code := r.asNobody(t, nobodyBin, "doctor"); code != 1 || !strings.Contains(out, "coordinator: NOT reachable by this user") || !strings.Contains(out, whose) {
		t.Errorf("doctor as nobody: exit %d, %q; want 1 saying its hooks here refuse every write, and why", code, out)
	}
	if h := r.holders(); h["a.txt"] != "alice" {
		t.Errorf("holders after nobody's attempts = %v, want a.txt still alice's", h)
	}
	r.stopServer()
	if out, code := r.asNobody(t, nobodyBin, "acquire", "a.txt", "--as", "bob"); code != 5 || !strings.Contains(out, whose) {
		t.Errorf("acquire as nobody with no coordinator: exit %d, %q; want 5 saying the state directory %s", code, out, whose)
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".git", "leasegate", "coord.sock")); err == nil {
		t.Error("nobody started a coordinator in root's state directory")
	}
}

// TestHiddenProcsSaid: with /proc mounted hidepid=invisible, a user's own
// leasegate processes (undumpable) are hidden from its coordinator, which
// then identified no caller and refused every command with OWNER_MISMATCH
// ("process not found"). run now says why at once (exit 2) and starts
// nothing, and so does a coordinator (exit 5).
func TestHiddenProcsSaid(t *testing.T) {
	nobodyBin, open := nobodyBinary(t)
	r := newCheckout(t, nil)
	ran := filepath.Join(open, "ran")
	own := filepath.Join(open, "ws") // a workspace of nobody's, for its coordinator
	if err := os.Mkdir(own, 0o755); err != nil || os.Chown(own, nobody, nobody) != nil {
		t.Fatalf("make nobody's workspace: %v", err)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"run", "--workspace", r.dir, "--as", "w", "--", "touch", ran}, 2},
		{[]string{"serve", "--workspace", own}, 5},
	} {
		script := `mount -t proc -o hidepid=invisible proc /proc && exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"`
		// A serve that does not refuse serves on: the deadline ends it.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, "unshare", append([]string{"-m", "--propagation", "private", "sh", "-c", script, "sh", nobodyBin}, tc.args...)...)
		cmd.Dir = "/"
		out, err := cmd.CombinedOutput()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.code || !strings.Contains(string(out), "hidepid=invisible") {
			t.Errorf("%s under hidepid as nobody: %v, %s; want exit %d naming hidepid", tc.args[0], err, out, tc.code)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the refused worker ran")
	}
}

// TestReadOnlyGitDirSaid: in a checkout whose .git another user owns and
// this one may not write, the state directory cannot be made, and the
// refusal names whose .git it is.
func TestReadOnlyGitDirSaid(t *testing.T) {
	nobodyBin, _ := nobodyBinary(t)
	r := newCheckout(t, nil)
	out, code := r.asNobody(t, nobodyBin, "acquire", "README.md", "--as", "bob")
	if code != 5 || !strings.Contains(out, "permission denied") || !strings.Contains(out, ".git belongs to user root, and this user may not write in it") {
		t.Errorf("acquire as nobody in root's checkout: exit %d, %q; want 5 naming .git's owner", code, out)
	}
}

// TestFuseInUserNamespace: a user without root runs the FUSE gate in a
// user namespace of its own (unshare -Ur), where it may make the mount
// namespace and the mount: the worker's write is leased and made.
func TestFuseInUserNamespace(t *testing.T) {
	if err := fuse.Available(); err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	nobodyBin, _ := nobodyBinary(t)
	r := nobodysCheckout(t, nobodyBin)
	out, code := r.asNobodyUnder(t, []string{"unshare", "-Ur"}, nobodyBin, "run", "--gate", "fuse", "--as", "w", "--", "sh", "-c", "echo more >> README.md")
	if code != 0 || r.read("README.md") != "# it\nmore\n" {
		t.Fatalf("run --gate fuse in nobody's user namespace: exit %d, %s; README.md %q", code, out, r.read("README.md"))
	}
	if out, _ := r.asNobody(t, nobodyBin, "history", "README.md"); !strings.Contains(out, "lease.granted") || !strings.Contains(out, "by w") {
		t.Errorf("history of README.md shows no lease of w:\n%s", out)
	}
}

// TestFuseRefusedSaysUserNamespace: a user without root who asks for the
// FUSE gate is refused before anything runs (exit 2), and told the two
// ways on: seccomp, or the FUSE gate in a user namespace of its own (it
// was told only of seccomp).
func TestFuseRefusedSaysUserNamespace(t *testing.T) {
	if err := fuse.Available(); err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	nobodyBin, open := nobodyBinary(t)
	r := nobodysCheckout(t, nobodyBin)
	ran := filepath.Join(open, "ran")
	out, code := r.asNobody(t, nobodyBin, "run", "--gate", "fuse", "--as", "w", "--", "touch", ran)
	if code != 2 || !strings.Contains(out, "--gate seccomp") || !strings.Contains(out, "unshare -Ur leasegate run --gate fuse") {
		t.Errorf("run --gate fuse as nobody: exit %d, %q; want 2 naming --gate seccomp and unshare -Ur", code, out)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the refused worker ran")
	}
}

// TestFuseInUserNamespaceGroupShared: in a user namespace of its own, a
// user's FUSE worker writes in a directory of its own whose group (a
// shared checkout's, such as team) the namespace does not map, as it may
// outside the view. The kernel gives no write access to a FUSE inode
// whose group it cannot map, and the view showed that group as it is:
// every create there failed with EACCES.
func TestFuseInUserNamespaceGroupShared(t *testing.T) {
	if err := fuse.Available(); err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	nobodyBin, _ := nobodyBinary(t)
	r := nobodysCheckout(t, nobodyBin)
	shared := filepath.Join(r.dir, "shared")
	if err := os.Mkdir(shared, 0o775); err != nil {
		t.Fatal(err)
	}
	const team = 4242 // a group nobody's namespace does not map
	if err := os.Chown(shared, nobody, team); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o775|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	out, code := r.asNobodyUnder(t, []string{"unshare", "-Ur"}, nobodyBin, "run", "--gate", "fuse", "--as", "w", "--", "sh", "-c", "echo x > shared/f && mkdir shared/d")
	if code != 0 {
		t.Fatalf("run --gate fuse in nobody's namespace, writing in a directory of group %d: exit %d, %s", team, code, out)
	}
	for _, name := range []string{"shared/f", "shared/d"} {
		fi, err := os.Stat(filepath.Join(r.dir, name))
		if err != nil {
			t.Errorf("%s not made: %v", name, err)
		} else if gid := fi.Sys().(*syscall.Stat_t).Gid; gid != team {
			t.Errorf("%s has group %d, want the directory's, %d", name, gid, team)
		}
	}
}

// nobodysCheckout is a checkout that nobody owns (group included: a user
// namespace of nobody's maps neither of root's ids), whose coordinator,
// started by nobody's commands, is stopped when the test ends.
func nobodysCheckout(t *testing.T, nobodyBin string) *repo {
	t.Helper()
	r := newCheckout(t, nil)
	if out, err := exec.Command("chown", "-R", fmt.Sprintf("%d:%d", nobody, nobody), r.dir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v, %s", err, out)
	}
	t.Cleanup(func() { r.asNobody(t, nobodyBin, "serve", "--stop", "--force") })
	return r
}

// TestUndumpableWorkerSaid: a worker process that makes itself undumpable
// (PR_SET_DUMPABLE 0, as ssh-agent does) cannot have its system calls
// read by a sidecar without root: its write fails (EACCES, never
// ungated), and run says why on stderr (it said nothing).
func TestUndumpableWorkerSaid(t *testing.T) {
	nobodyBin, _ := nobodyBinary(t)
	r := nobodysCheckout(t, nobodyBin)
	script := "import ctypes\nctypes.CDLL(None).prctl(4, 0, 0, 0, 0)\ntry:\n  open('new.txt', 'w')\nexcept OSError as e:\n  print('refused', e.errno)\n"
	out, _ := r.asNobody(t, nobodyBin, "run", "--as", "w", "--", "python3", "-c", script)
	if !strings.Contains(out, "refused 13") || !strings.Contains(out, "made itself undumpable") || !strings.Contains(out, "comm=python3") {
		t.Errorf("run of an undumpable writer as nobody: %s; want its write refused with EACCES and why", out)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "new.txt")); err == nil {
		t.Error("the undumpable worker's file was made")
	}
}

// TestOperatorInUserNamespaceRecordedByHostUID: a coordinator started in a
// rootless container (unshare -Ur) sees its user as uid 0 by SO_PEERCRED;
// an operator's act is recorded with the uid the host knows that user by
// (it said uid 0, as if root had done it).
func TestOperatorInUserNamespaceRecordedByHostUID(t *testing.T) {
	nobodyBin, _ := nobodyBinary(t)
	r := nobodysCheckout(t, nobodyBin)
	if out, code := r.asNobodyUnder(t, []string{"unshare", "-Ur"}, nobodyBin, "acquire", "README.md", "--as", "alice"); code != 0 {
		t.Fatalf("acquire in nobody's user namespace: exit %d, %s", code, out)
	}
	if out, code := r.asNobody(t, nobodyBin, "release", "README.md", "--as", "alice"); code != 0 {
		t.Fatalf("release by nobody on the host: exit %d, %s", code, out)
	}
	out, _ := r.asNobody(t, nobodyBin, "history", "README.md")
	if !strings.Contains(out, fmt.Sprintf("uid %d (SO_PEERCRED)", nobody)) {
		t.Errorf("history after nobody released alice's check-out does not name uid %d:\n%s", nobody, out)
	}
}

// TestRootlessContainerOperatorFollowsTheHint: a worker in a rootless
// container (unshare -Urp) starts the coordinator inside it; an operator's
// act from the host is refused with the command that does it from inside,
// and that command, run by the same unprivileged user, works (the hint
// said nsenter --all, which enters the cgroup namespace too, refused to
// anyone but root).
func TestRootlessContainerOperatorFollowsTheHint(t *testing.T) {
	nobodyBin, _ := nobodyBinary(t)
	r := nobodysCheckout(t, nobodyBin)
	r.asNobody(t, nobodyBin, "status") // opens the checkout and writes nobody's git config
	ctx, cancel := context.WithCancel(t.Context())
	worker := exec.CommandContext(ctx, "unshare", "-Urp", "--fork", "--mount-proc", "--kill-child",
		nobodyBin, "run", "--as", "inner", "--", "sh", "-c", "echo x >> README.md; sleep 60")
	worker.Dir = r.dir
	worker.Env = append(slices.Clone(r.env), "HOME=/", "GIT_CONFIG_GLOBAL="+filepath.Join(filepath.Dir(nobodyBin), "gitconfig"))
	worker.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	var wout syncBuffer
	worker.Stdout, worker.Stderr = &wout, &wout
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = worker.Wait() })
	var status string
	eventually(t, 20*time.Second, "inner to lease README.md", func() bool {
		status, _ = r.asNobody(t, nobodyBin, "status")
		return regexp.MustCompile(`(?m)^README\.md +inner `).MatchString(status)
	})
	m := regexp.MustCompile(`coordinator pid (\d+) \(pid \d+ in its pid namespace\)`).FindStringSubmatch(status)
	if m == nil {
		t.Fatalf("status names no coordinator in another pid namespace:\n%s\nworker: %s", status, wout.String())
	}
	out, code := r.asNobody(t, nobodyBin, "evict", "README.md", "--reason", "stuck")
	hint := regexp.MustCompile(`from inside that namespace: (nsenter [^\n]*?) --wdns=`).FindStringSubmatch(out)
	if code != 3 || hint == nil {
		t.Fatalf("evict from the host: exit %d, %s; want ADMIN_REQUIRED (exit 3) with the nsenter command", code, out)
	}
	under := append(strings.Fields(strings.Replace(hint[1], "PID", m[1], 1)), "--wdns="+r.dir)
	if out, code := r.asNobodyUnder(t, under, nobodyBin, "evict", "README.md", "--reason", "stuck"); code != 0 {
		t.Fatalf("evict through %q as nobody, as the refusal says: exit %d, %s", under, code, out)
	}
	if status, _ := r.asNobody(t, nobodyBin, "status"); regexp.MustCompile(`(?m)^README\.md +inner `).MatchString(status) {
		t.Fatalf("README.md still inner's after its eviction through nsenter:\n%s", status)
	}
}
