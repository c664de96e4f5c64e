package integration_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
)

// bin is the leasegate binary built once for all tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "leasegate-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "leasegate")
	build := exec.Command("go", "build", "-o", bin, "../cmd/leasegate")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build leasegate:", err)
		os.Exit(1)
	}
	code := m.Run()
	if left := leftoverServes(15 * time.Second); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "coordinators still running after the tests (killed now): %v\n", left)
		code = max(code, 1)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// repo is a temporary git checkout with a running coordinator.
type repo struct {
	t      testing.TB
	dir    string
	env    []string
	server *exec.Cmd
	client *api.Client
	log    *bytes.Buffer
	host   string // when set, every process of the checkout runs with this hostname (its own machine)
	gate   string // when set, workers run with --gate gate
	level  string // the coordinator's --log-level; "" is debug
	bin    string // the leasegate binary; "" is the one built for the tests
}

// windows are the shortened protocol windows most tests run with.
const (
	retryAfter = 1500 * time.Millisecond
	idleAfter  = time.Second
)

// newRepo makes a git repository with files and starts its coordinator.
func newRepo(t testing.TB, files map[string]string) *repo {
	t.Helper()
	r := newCheckout(t, files)
	r.startServer(retryAfter, idleAfter)
	return r
}

// newCheckout makes a git repository with files and no coordinator.
func newCheckout(t testing.TB, files map[string]string) *repo {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &repo{t: t, dir: dir, log: &bytes.Buffer{}}
	r.env = append(cleanEnv(), "GIT_AUTHOR_NAME=it", "GIT_AUTHOR_EMAIL=it@example.com",
		"GIT_COMMITTER_NAME=it", "GIT_COMMITTER_EMAIL=it@example.com", "LEASEGATE_NO_START=")
	if files == nil {
		files = map[string]string{"README.md": "# it\n"}
	}
	files[".gitignore"] = "build/\n"
	for name, body := range files {
		r.write(name, body)
	}
	r.git("init", "-q", "-b", "main")
	r.git("add", "-A")
	r.git("commit", "-qm", "initial")
	return r
}

func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LEASEGATE_") && !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	return out
}

func (r *repo) write(name, body string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) read(name string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (r *repo) startServer(retry, idle time.Duration) {
	r.t.Helper()
	r.startServerCmd(r.command(context.Background(), r.serveArgs(retry, idle)...))
}

// serveArgs are the arguments of the checkout's coordinator.
func (r *repo) serveArgs(retry, idle time.Duration) []string {
	level := cmp.Or(r.level, "debug")
	return []string{"serve", "--workspace", r.dir, "--retry-after", retry.String(),
		"--idle-after", idle.String(), "--log-level", level, "--idle-exit", "0"}
}

// startServerCmd starts cmd, a coordinator of the checkout, and waits
// until it answers.
func (r *repo) startServerCmd(cmd *exec.Cmd) {
	r.t.Helper()
	cmd.Env, cmd.Dir = r.env, r.dir
	cmd.Stdout, cmd.Stderr = r.log, r.log
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.server = cmd
	sock := filepath.Join(r.dir, ".git", "leasegate", "coord.sock")
	cl, err := api.NewClient(api.ClientConfig{Socket: sock, RetryMax: 1})
	if err != nil {
		r.t.Fatal(err)
	}
	r.client = cl
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := cl.Health(context.Background()); err == nil {
			r.t.Cleanup(r.stopServer)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	r.t.Fatalf("coordinator did not start:\n%s", r.log)
}

func (r *repo) stopServer() {
	if r.server == nil {
		return
	}
	_ = r.server.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = r.server.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = r.server.Process.Kill()
		<-done
	}
	r.server = nil
	if r.t.Failed() {
		r.t.Logf("coordinator log:\n%s", r.log)
	}
}

// killServer ends the coordinator with SIGKILL.
func (r *repo) killServer() {
	_ = r.server.Process.Kill()
	_ = r.server.Wait()
	r.server = nil
}

// lg runs the leasegate CLI in the repo and returns stdout, stderr and the
// exit code.
func (r *repo) lg(args ...string) (string, string, int) {
	r.t.Helper()
	return r.lgWith("", "", args...)
}

// lgWith runs the CLI with stdin and one more environment variable (""
// for none).
func (r *repo) lgWith(stdin, env string, args ...string) (string, string, int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := r.command(ctx, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = r.dir, r.env, strings.NewReader(stdin)
	if env != "" {
		cmd.Env = append(slices.Clone(r.env), env)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("leasegate %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// mustLG runs the CLI and fails the test on a non-zero exit.
func (r *repo) mustLG(args ...string) string {
	r.t.Helper()
	out, errs, code := r.lg(args...)
	if code != 0 {
		r.t.Fatalf("leasegate %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errs)
	}
	return out
}

// worker starts `leasegate run --as name -- sh -c script` in the background.
type worker struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	code int
}

func (r *repo) worker(name, script string) *worker {
	r.t.Helper()
	return r.workerEnv(name, script)
}

// workerEnv starts a worker with env added to the repo's.
func (r *repo) workerEnv(name, script string, env ...string) *worker {
	r.t.Helper()
	args := []string{"run", "--as", name}
	if r.gate != "" {
		args = append(args, "--gate", r.gate)
	}
	return r.startEnv(env, append(args, "--", "sh", "-c", script)...)
}

// start starts the CLI with args in the background, as a worker.
func (r *repo) start(args ...string) *worker {
	r.t.Helper()
	return r.startEnv(nil, args...)
}

// startEnv starts the CLI with args and env added to the repo's.
func (r *repo) startEnv(env []string, args ...string) *worker {
	r.t.Helper()
	cmd := r.command(context.Background(), args...)
	cmd.Dir, cmd.Env = r.dir, append(slices.Clone(r.env), env...)
	return startProcess(r.t, cmd)
}

// startProcess starts cmd in the background, its output kept, and kills
// it when the test ends.
func startProcess(t testing.TB, cmd *exec.Cmd) *worker {
	t.Helper()
	w := &worker{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	w.cmd.WaitDelay = time.Second // a killed sidecar's orphans may keep the pipe open
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = w.cmd.Wait()
		w.code = w.cmd.ProcessState.ExitCode()
		close(w.done)
	}()
	t.Cleanup(func() {
		_ = w.cmd.Process.Kill()
		<-w.done
	})
	return w
}

// wait waits for the worker to end and returns its exit code.
func (w *worker) wait(t testing.TB, within time.Duration) int {
	t.Helper()
	select {
	case <-w.done:
		return w.code
	case <-time.After(within):
		t.Fatalf("worker did not end within %s; output:\n%s", within, w.out)
		return -1
	}
}

func (r *repo) status() leasegate.Status {
	r.t.Helper()
	s, err := r.client.Status(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

// ungatedWrites returns the ungated writes status lists, by path (the
// latest of a path).
func (r *repo) ungatedWrites() map[string]leasegate.UngatedWrite {
	r.t.Helper()
	out := map[string]leasegate.UngatedWrite{}
	for _, u := range r.status().Ungated {
		out[u.Path] = u
	}
	return out
}

// heldBy reports whether u names a lease of owner.
func heldBy(u leasegate.UngatedWrite, owner string) bool {
	return u.Lease != nil && u.Lease.Owner.Name == owner
}

// ownerView returns the status of owner name, if listed.
func (r *repo) ownerView(name string) (leasegate.OwnerView, bool) {
	r.t.Helper()
	for _, o := range r.status().Owners {
		if o.Name == name {
			return o, true
		}
	}
	return leasegate.OwnerView{}, false
}

// kill ends process pid at once (SIGKILL; TerminateProcess on Windows).
func kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
		_ = p.Release()
	}
}

// holders maps each leased path to its owner.
func (r *repo) holders() map[string]string {
	m := map[string]string{}
	for _, l := range r.status().Leases {
		for _, p := range l.Scope.Paths {
			m[p] = l.Owner.Name
		}
	}
	return m
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s", within, what)
}

func (r *repo) openBlockers() []blocker.Report {
	r.t.Helper()
	bs, err := r.client.Blockers(context.Background(), false)
	if err != nil {
		r.t.Fatal(err)
	}
	return bs
}

func (r *repo) history(path string) []gate.Event {
	r.t.Helper()
	evs, err := r.client.History(context.Background(), "", path, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	return evs
}

func hasEvent(evs []gate.Event, typ gate.EventType) bool {
	for _, e := range evs {
		if e.Type == typ {
			return true
		}
	}
	return false
}

func mustJSON(t testing.TB, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
}

// command is the CLI with args, run on the checkout's machine: in a UTS
// namespace of its own with r.host as hostname when r.host is set. The
// namespace is entered by exec, so the process is the CLI itself.
func (r *repo) command(ctx context.Context, args ...string) *exec.Cmd {
	prog := cmp.Or(r.bin, bin)
	if r.host == "" {
		return exec.CommandContext(ctx, prog, args...)
	}
	return exec.CommandContext(ctx, "unshare", append([]string{"--uts", "sh", "-c", `hostname "$0" && exec "$@"`, r.host, prog}, args...)...)
}

// waitFor is the shell's wait until the file at path exists.
func waitFor(path string) string { return "while [ ! -e " + path + " ]; do sleep 0.1; done; " }

// touch makes an empty file at path, outside the workspace.
func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
