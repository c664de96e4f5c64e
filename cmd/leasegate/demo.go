package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/internal/gitrun"
)

// demo windows: short enough to watch, announced at the start.
const (
	demoRetryAfter = 3 * time.Second
	demoIdleAfter  = 2 * time.Second
)

type demo struct {
	self string
	dir  string
	env  []string
	out  *os.File
}

func cmdDemo(ctx context.Context, args []string) error {
	var keep bool
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.BoolVar(&keep, "keep", false, "keep the temporary repository and print where it is")
	if err := parseNone("demo", fs, args); err != nil {
		return err
	}
	d, err := newDemo()
	if err != nil {
		return err
	}
	defer d.cleanup(keep)
	// A reader that goes away (`leasegate demo | head`) ends the demo
	// early, its workers and coordinator with it, instead of killing it
	// by SIGPIPE with the repository and coordinator left behind.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	go func() {
		select {
		case <-pipe:
			cancel()
		case <-ctx.Done():
		}
	}()
	return d.play(ctx)
}

func newDemo() (*demo, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "leasegate-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: make its repository in the temporary directory %s (TMPDIR): %w", os.TempDir(), err)
	}
	env := append(withoutEnv(withoutEnv(os.Environ(), envname.As), envname.Workspace),
		envname.RetryAfter+"="+demoRetryAfter.String(), envname.IdleAfter+"="+demoIdleAfter.String(),
		"GIT_AUTHOR_NAME=demo", "GIT_AUTHOR_EMAIL=demo@example.com", "GIT_COMMITTER_NAME=demo", "GIT_COMMITTER_EMAIL=demo@example.com")
	return &demo{self: self, dir: dir, env: env, out: os.Stdout}, nil
}

func (d *demo) cleanup(keep bool) {
	if keep {
		fmt.Fprintf(d.out, "\nthe demo repository is kept at %s\n", d.dir)
		return
	}
	_ = os.RemoveAll(d.dir)
}

func (d *demo) say(format string, args ...any) {
	fmt.Fprintf(d.out, "\n==> "+format+"\n", args...)
}

func (d *demo) play(ctx context.Context) error {
	fmt.Fprintf(d.out, "leasegate demo in %s\nwindows shortened for the demo: retry after %s (contract: 3m0s), stop-idle %s (contract: 30s)\n",
		d.dir, demoRetryAfter, demoIdleAfter)
	if err := d.setupRepo(); err != nil {
		return err
	}
	srv, err := d.startServer(ctx)
	if err != nil {
		return err
	}
	defer d.stopServer(srv)
	for _, scene := range []func(context.Context) error{d.sceneWoken, d.sceneReclaim, d.sceneBlocker, d.sceneStopIdle, d.sceneCommit} {
		if err := scene(ctx); err != nil {
			return err
		}
	}
	d.say("the audit trail of src/app.go")
	return d.show(ctx, "history", "src/app.go")
}

func (d *demo) setupRepo() error {
	files := map[string]string{
		"README.md": "# demo\n", "src/app.go": "package app\n", "src/app_test.go": "package app\n",
		"docs/guide.md": "# guide\n", ".gitignore": "build/\n",
	}
	for name, body := range files {
		p := filepath.Join(d.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "initial"}} {
		if err := d.git(args...); err != nil {
			return err
		}
	}
	return nil
}

func (d *demo) startServer(ctx context.Context) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, d.self, "serve", "--workspace", d.dir, "--log-level", "warn")
	cmd.Env, cmd.Dir, cmd.Stderr = d.env, d.dir, &prefixWriter{prefix: "   [coordinator] ", out: d.out}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if d.quiet(ctx, "status", "--json") == nil { // exit 5 while none answers
			return cmd, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return nil, fmt.Errorf("demo: the coordinator did not start")
}

func (d *demo) stopServer(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
}

// worker starts `leasegate run --as name -- sh -c script` in the demo
// repository; its output goes to the demo's output, prefixed.
func (d *demo) worker(ctx context.Context, name, script string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, d.self, "run", "--as", name, "--", "sh", "-c", script)
	cmd.Env, cmd.Dir = d.env, d.dir
	w := &prefixWriter{prefix: "   [" + name + "] ", out: d.out}
	cmd.Stdout, cmd.Stderr = w, w
	cmd.WaitDelay = time.Second
	return cmd, cmd.Start()
}

func (d *demo) show(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, d.self, args...)
	cmd.Env, cmd.Dir = d.env, d.dir
	cmd.Stdout, cmd.Stderr = &prefixWriter{prefix: "   ", out: d.out}, &prefixWriter{prefix: "   ", out: d.out}
	return cmd.Run()
}

func (d *demo) quiet(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, d.self, args...)
	cmd.Env, cmd.Dir = d.env, d.dir
	return cmd.Run()
}

func (d *demo) output(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, d.self, args...)
	cmd.Env, cmd.Dir = d.env, d.dir
	out, err := cmd.Output()
	return string(out), err
}

// git runs git with args in the demo's repository.
func (d *demo) git(args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Env, cmd.Dir = d.env, d.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return gitrun.Failed(args, err, stderr.String())
	}
	return nil
}

// prefixWriter prefixes each line written through it.
type prefixWriter struct {
	prefix string
	out    *os.File
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		fmt.Fprintf(p.out, "%s%s\n", p.prefix, p.buf[:i])
		p.buf = p.buf[i+1:]
	}
}
