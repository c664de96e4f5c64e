//go:build linux

package integration_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/gate"
)

// pyPrelude gives the worker's Python scripts raw syscalls: sys(nr, args)
// returns the result or -errno, with this architecture's numbers.
var pyPrelude = fmt.Sprintf(`import ctypes, errno, os, socket, struct, fcntl, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sys_(nr, *a):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(x) if isinstance(x, int) else x for x in a])
    return -ctypes.get_errno() if r == -1 else r
SYS = dict(open_tree=%d, acct=%d, ptrace=%d, process_vm_writev=%d, pidfd_open=%d, pidfd_getfd=%d, mount=%d)
def say(name, r): print("%%s=%%s" %% (name, r), flush=True)
`, unix.SYS_OPEN_TREE, unix.SYS_ACCT, unix.SYS_PTRACE, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_PIDFD_OPEN,
	unix.SYS_PIDFD_GETFD, unix.SYS_MOUNT)

// pyWorker runs a Python script as worker name and returns its output
// once it ended.
func (r *repo) pyWorker(t *testing.T, name, script string) string {
	t.Helper()
	py := filepath.Join(t.TempDir(), "w.py")
	if err := os.WriteFile(py, []byte(pyPrelude+script), 0o644); err != nil {
		t.Fatal(err)
	}
	w := r.worker(name, "/usr/bin/python3 "+py)
	if code := w.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("worker %s exit %d:\n%s", name, code, w.out)
	}
	return w.out.String()
}

// results parses "name=value" lines.
func results(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the escape uses CAP_SYS_ADMIN (open_tree, acct)")
	}
}

// TestDetachedTreeRefused: a worker cannot reach the workspace through a
// tree detached by open_tree (its fd's /proc link reads "/", so a write
// through it looked like one outside the workspace): open_tree and the
// other new mount syscalls fail with EPERM, and f.txt, which alice holds,
// is unchanged.
func TestDetachedTreeRefused(t *testing.T) {
	needRoot(t)
	r := newRepo(t, map[string]string{"f.txt": "alice's\n"})
	r.mustLG("acquire", "--as", "alice", "f.txt")
	out := r.pyWorker(t, "bob", `
fd = sys_(SYS["open_tree"], -100, b".", 1)  # OPEN_TREE_CLONE
say("open_tree", fd)
if fd >= 0:
    w = os.open("f.txt", os.O_WRONLY | os.O_TRUNC, dir_fd=fd)
    os.write(w, b"bob\n")
    say("wrote", 1)
os.mkdir("mnt")
say("mount", sys_(SYS["mount"], b"none", b"mnt", b"tmpfs", 0, 0))
if os.path.ismount("mnt"):
    os.system("umount mnt")
`)
	res := results(out)
	if res["open_tree"] != fmt.Sprint(-int(unix.EPERM)) || res["mount"] != fmt.Sprint(-int(unix.EPERM)) {
		t.Errorf("open_tree = %s, mount = %s, want -EPERM each\n%s", res["open_tree"], res["mount"], out)
	}
	if got := r.read("f.txt"); got != "alice's\n" {
		t.Fatalf("f.txt, held by alice, = %q after a write through a detached tree", got)
	}
}

// TestMoreMutationsGated: extended attributes, file flags (chattr's
// ioctl) and a unix socket bound to a path are gated like any write (the
// worker is granted a lease for each file), and acct(2), which makes the
// kernel append to a file, is refused.
func TestMoreMutationsGated(t *testing.T) {
	r := newRepo(t, map[string]string{"x1.txt": "1\n", "x2.txt": "2\n", "fl.txt": "3\n", "acct.txt": ""})
	out := r.pyWorker(t, "bob", `
os.setxattr("x1.txt", "user.k", b"v"); say("setxattr", 0)
os.setxattr("x2.txt", "user.k", b"v", follow_symlinks=False); say("lsetxattr", 0)
fd = os.open("fl.txt", os.O_RDONLY)
flags = bytearray(8)
fcntl.ioctl(fd, 0x80086601, flags)  # FS_IOC_GETFLAGS
fcntl.ioctl(fd, 0x40086602, flags)  # FS_IOC_SETFLAGS, unchanged
say("setflags", 0)
s = socket.socket(socket.AF_UNIX); s.bind("s.sock"); say("bind", 0)
say("acct", sys_(SYS["acct"], b"acct.txt"))
sys_(SYS["acct"], 0)
`)
	if res := results(out); res["acct"] != fmt.Sprint(-int(unix.EPERM)) {
		t.Errorf("acct = %s, want -EPERM\n%s", res["acct"], out)
	}
	for _, p := range []string{"x1.txt", "x2.txt", "fl.txt", "s.sock"} {
		granted := false
		for _, e := range r.history(p) {
			granted = granted || (e.Type == gate.EventGranted && e.Lease != nil && e.Lease.Owner.Name == "bob")
		}
		if !granted {
			t.Errorf("%s: no lease granted to bob: the mutation passed no gate\n%s", p, out)
		}
	}
}

// TestOtherProcessesRefused: a worker cannot attach to, write the memory
// or the standard input of, or take a pidfd of a process outside its own
// tree (another owner's
// process here), its own sidecar or the reaper between them (both run
// without the filter),
// while tracing its own child still works.
func TestOtherProcessesRefused(t *testing.T) {
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil && strings.TrimSpace(string(b)) >= "2" {
		t.Skipf("Yama ptrace_scope %s forbids tracing even one's own child", strings.TrimSpace(string(b)))
	}
	r := newRepo(t, nil)
	victim := exec.Command("sleep", "60")
	stdin, feed, err := os.Pipe() // the victim's standard input, as an agent's
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	victim.Stdin = stdin
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
	out := r.pyWorker(t, "bob", fmt.Sprintf(`
v = %d
say("attach", sys_(SYS["ptrace"], 16, v, 0, 0))       # PTRACE_ATTACH
say("seize", sys_(SYS["ptrace"], 0x4206, v, 0, 0))    # PTRACE_SEIZE
say("attach_sidecar", sys_(SYS["ptrace"], 16, int(os.environ["LEASEGATE_SIDECAR"]), 0, 0))
p, reaper = os.getpid(), -1
while p > 1 and reaper < 0:
    p = int(open("/proc/%%d/stat" %% p).read().rsplit(")", 1)[1].split()[1])
    if open("/proc/%%d/cmdline" %% p, "rb").read().startswith(b"leasegate-seccomp-reaper"):
        reaper = p
say("attach_reaper", sys_(SYS["ptrace"], 16, reaper, 0, 0) if reaper > 0 else "no reaper")
say("pidfd_open", sys_(SYS["pidfd_open"], v, 0))
buf = ctypes.create_string_buffer(8)
iov = struct.pack("QQ", ctypes.addressof(buf), 8)
say("vm_writev", sys_(SYS["process_vm_writev"], v, iov, 1, iov, 1, 0))
try:
    os.close(os.open("/proc/%%d/mem" %% v, os.O_RDWR)); say("mem", 0)
except OSError as e:
    say("mem", -e.errno)
try:
    os.close(os.open("/proc/%%d/fd/0" %% v, os.O_WRONLY)); say("fd0", 0)
except OSError as e:
    say("fd0", -e.errno)
child = os.fork()
if child == 0:
    time.sleep(5); os._exit(0)
say("seize_own", sys_(SYS["ptrace"], 0x4206, child, 0, 0))
pfd = sys_(SYS["pidfd_open"], child, 0)
say("pidfd_open_own", 0 if pfd >= 0 else pfd)
os.kill(child, 9); os.waitpid(child, 0)
`, victim.Process.Pid))
	res := results(out)
	eperm := fmt.Sprint(-int(unix.EPERM))
	for _, k := range []string{"attach", "seize", "attach_sidecar", "attach_reaper", "pidfd_open", "vm_writev"} {
		if res[k] != eperm {
			t.Errorf("%s of another owner's process = %s, want %s", k, res[k], eperm)
		}
	}
	if res["mem"] != fmt.Sprint(-int(unix.EACCES)) || res["fd0"] != fmt.Sprint(-int(unix.EACCES)) {
		t.Errorf("write open of another process's memory = %s, of its stdin = %s, want -EACCES each", res["mem"], res["fd0"])
	}
	if res["seize_own"] != "0" || res["pidfd_open_own"] != "0" {
		t.Errorf("own child: seize = %s, pidfd_open = %s, want 0 each", res["seize_own"], res["pidfd_open_own"])
	}
	if t.Failed() {
		t.Logf("worker output:\n%s", out)
	}
}

// TestCheckedIsUsed: what the gate checked is what the kernel does. A
// worker flips openat2's flags from read-only to write while the gate
// reads them, and swaps a directory of an ungated path for a symlink into
// the state directory while the gate resolves it; thousands of tries never
// get a write fd on the state directory's file.
func TestCheckedIsUsed(t *testing.T) {
	r := newRepo(t, nil)
	racer := filepath.Join(t.TempDir(), "racer")
	if out, err := exec.Command("go", "build", "-o", racer, "./testdata/racer").CombinedOutput(); err != nil {
		t.Fatalf("build racer: %v\n%s", err, out)
	}
	canary := filepath.Join(r.dir, ".git", "leasegate", "canary")
	if err := os.WriteFile(canary, []byte("state\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(canary, &st); err != nil {
		t.Fatal(err)
	}
	r.write(".git/dd/canary", "decoy\n")
	if err := os.Symlink("leasegate", filepath.Join(r.dir, ".git", "ds")); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("%s flags .git/leasegate/canary 3000 && %s dirswap .git/dd .git/ds canary %d 3000", racer, racer, st.Ino)
	w := r.worker("bob", script)
	if code := w.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("racer exit %d:\n%s", code, w.out)
	}
	var lines []string
	for _, line := range strings.Split(w.out.String(), "\n") {
		if strings.HasPrefix(line, "hits=") {
			lines = append(lines, line)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("racer output has %d result lines, want 2:\n%s", len(lines), w.out)
	}
	for i, what := range []string{"flags flipped to O_WRONLY", "directory swapped for a symlink"} {
		var hits, opened int
		if _, err := fmt.Sscanf(lines[i], "hits=%d opened=%d", &hits, &opened); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d write fds on the state file of %d opens", what, hits, opened)
		if hits != 0 {
			t.Errorf("%s: %d opens got a write fd on the state directory's file", what, hits)
		}
		if opened == 0 {
			t.Errorf("%s: no open succeeded at all: the race was never run", what)
		}
	}
	if got := r.read(".git/leasegate/canary"); got != "state\n" {
		t.Fatalf("state file = %q", got)
	}
}
