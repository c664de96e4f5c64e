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

	"github.com/leasegate/leasegate/intercept/procfs"
)

// TestRunAtProcessLimit: nobody runs a worker with its process limit
// (`ulimit -u`, RLIMIT_NPROC) so near what it runs already that the gate's
// helpers would not fit. run refuses at once with exit 126, naming the
// limit's value, its count and `ulimit -u`, and starts nothing. Before,
// the helpers' fork failed with "resource temporarily unavailable", or a
// helper aborted with a Go stack dump, naming no limit; and nearer the
// limit run itself aborted so, before it checked at its start.
func TestRunAtProcessLimit(t *testing.T) {
	nobodyBin, open := nobodyBinary(t)
	ws := filepath.Join(open, "ws")
	r := &repo{t: t, dir: ws, env: append(cleanEnv(), "HOME=/", "GIT_CONFIG_GLOBAL="+filepath.Join(open, "gitconfig"))}
	if err := os.WriteFile(filepath.Join(open, "gitconfig"), []byte("[safe]\n\tdirectory = *\n[user]\n\tname = it\n\temail = it@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.write("a.txt", "a\n")
	r.git("init", "-q", "-b", "main")
	r.git("add", "-A")
	r.git("commit", "-qm", "initial")
	if out, err := exec.Command("chown", "-R", fmt.Sprint(nobody), ws).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v\n%s", err, out)
	}
	serve := r.asNobodyCmd(nil, nobodyBin, "serve", "--workspace", ws, "--idle-exit", "0")
	w := startProcess(t, serve)
	eventually(t, 15*time.Second, "nobody's coordinator serving", func() bool {
		_, err := os.Stat(filepath.Join(ws, ".git", "leasegate", "coord.sock"))
		return err == nil
	})
	t.Cleanup(func() { _ = serve.Process.Signal(os.Interrupt); w.wait(t, 15*time.Second) })
	// Room for run itself (its Go runtime's threads), not for the gate;
	// and, from 6 on, as near the limit as run's first check can be
	// reached: the Go runtime makes 3 to 5 threads before any of run's
	// code runs, and aborts when it cannot (exit 2, its own stack dump).
	// Before run checked at its start, those from 6 to 8 aborted as often
	// as not, in signal.Notify or the first dial.
	ran := filepath.Join(open, "ran")
	for round := range 3 {
		for room := 6; room <= 12; room++ {
			tasks, err := procfs.UserTasks(nobody)
			if err != nil {
				t.Fatal(err)
			}
			limit := tasks + room
			run := r.asNobodyCmd([]string{"prlimit", fmt.Sprintf("--nproc=%d", limit)}, nobodyBin, "run", "--as", "w", "--no-start", "--", "touch", ran)
			out, err := run.CombinedOutput()
			code := run.ProcessState.ExitCode()
			if code != 126 || !strings.Contains(string(out), fmt.Sprintf("process limit is %d (`ulimit -u`, RLIMIT_NPROC)", limit)) ||
				!strings.Contains(string(out), "nothing was started") || strings.Contains(string(out), "SIGABRT") {
				t.Errorf("round %d: run as nobody under ulimit -u %d (it ran %d): %v, exit %d\n%.2000s\nwant exit 126 naming the limit", round, limit, tasks, err, code, out)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Fatal("the refused worker ran")
			}
		}
	}
}

// asNobodyCmd is the CLI with args, run as nobody in r's checkout by the
// command under (prlimit ...).
func (r *repo) asNobodyCmd(under []string, nobodyBin string, args ...string) *exec.Cmd {
	argv := append(append(append([]string(nil), under...), nobodyBin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = r.dir, r.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	return cmd
}
