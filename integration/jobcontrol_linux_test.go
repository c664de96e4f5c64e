package integration_test

import (
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/gate"
)

// TestCtrlZSuspendsTheJob: in an interactive shell on a terminal, Ctrl-Z
// of a worker suspends `leasegate run` as the shell's job (the shell says
// it stopped and prompts again; the owner is stopped), and `fg` resumes
// the worker with the terminal, for each gate.
func TestCtrlZSuspendsTheJob(t *testing.T) {
	for _, g := range gates(t) {
		t.Run(g, func(t *testing.T) {
			t.Parallel()
			r := newGateRepo(t, g, map[string]string{"a.txt": "a\n"})
			sh := startShell(t, r)
			sh.send(bin + " run --gate " + g + ` --as zed -- sh -c 'echo z >> a.txt; echo work""er started; read x; echo "resumed $x"'` + "\n")
			sh.await("worker started") // the terminal echoes the command as typed: "work""er"
			sh.send("\x1a")
			sh.await("Stopped")
			eventually(t, 5*time.Second, "zed stopped", func() bool {
				o, ok := r.ownerView("zed")
				return ok && o.Liveness.Status == gate.Stopped
			})
			sh.send("fg\n")
			sh.send("go-on\n")
			sh.await("resumed go-on")
			sh.send(`echo "run exited $?"` + "\n")
			sh.await("run exited 0")
		})
	}
}

// TestBackgroundRunLeavesTheTerminal: `leasegate run ... &` from an
// interactive shell leaves the terminal to the shell, which goes on
// reading commands while the worker runs; the worker took the terminal
// before, and the shell could read nothing until it ended.
func TestBackgroundRunLeavesTheTerminal(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	sh := startShell(t, r)
	sh.send(bin + ` run --as bg -- sh -c 'echo b >> a.txt; sleep 30' &` + "\n")
	eventually(t, 10*time.Second, "bg holding a.txt", func() bool { return r.holders()["a.txt"] == "bg" })
	sh.send(`echo "still $((40+2))"` + "\n")
	sh.await("still 42")
}

// shell is an interactive bash on a terminal of its own.
type shell struct {
	t      *testing.T
	master *os.File
	out    *syncBuffer
}

// startShell starts bash -i in r's checkout on a new pseudo-terminal, in a
// session of its own with the terminal as its controlling one; the test's
// end kills its session.
func startShell(t *testing.T, r *repo) *shell {
	t.Helper()
	master, tty := openPty(t)
	cmd := exec.Command("bash", "--norc", "--noprofile", "-i")
	cmd.Dir, cmd.Env = r.dir, append(slices.Clone(r.env), "PS1=$ ", "TERM=dumb")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	sh := &shell{t: t, master: master, out: &syncBuffer{}}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(sh.out, master)
	}()
	t.Cleanup(func() {
		// Every process of the terminal's session, the shell's jobs (a
		// stopped run among them) included: they hold the terminal open.
		killSession(cmd.Process.Pid)
		_ = cmd.Wait()
		master.Close()
		<-copied
	})
	return sh
}

func (sh *shell) send(s string) {
	sh.t.Helper()
	if _, err := sh.master.WriteString(s); err != nil {
		sh.t.Fatal(err)
	}
}

// await waits until the terminal has shown want.
func (sh *shell) await(want string) {
	sh.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(sh.out.String(), want) {
		if time.Now().After(deadline) {
			sh.t.Fatalf("the terminal did not show %q within 15 s:\n%s", want, sh.out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openPty opens a new pseudo-terminal pair: its master and its terminal.
func openPty(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// killSession sends SIGKILL to every process of session sid.
func killSession(sid int) {
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		if s, err := unix.Getsid(pid); err == nil && s == sid {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
