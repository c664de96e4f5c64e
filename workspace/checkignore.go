package workspace

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/gitrun"
)

// checkIgnoreTimeout bounds one answer from git check-ignore. Git answers in
// tens of microseconds; a process silent for this long is stuck, and gating
// the path beats stalling the worker.
const checkIgnoreTimeout = 5 * time.Second

// ignoreAnswer is git's verdict on one path.
type ignoreAnswer struct {
	ignored bool   // a pattern ignores the path
	tracked bool   // ignored, but tracked (force-added), or for a directory holding tracked files
	rule    string // "source:line: pattern" of the matching pattern, if any
	blind   bool   // git cannot answer for this path (beyond a symlink, pathspec magic, git unusable)
	linked  bool   // blind because the path lies beyond a symlink: so does all its directory
}

// ignoreChecker asks one long-lived `git check-ignore --stdin` process
// about one path at a time. Git flushes its answer after each path when its
// stdout is a pipe (GIT_FLUSH=1 makes sure whatever the environment says),
// and --non-matching makes it answer every path, so each question gets
// exactly one answer.
//
// The process runs with --no-index: without it git matches every question
// against the whole index to leave tracked files out, which costs
// O(tracked files) per question (0.6 ms with 50,000 of them). Instead the
// few tracked files that patterns ignore (force-added ones) are listed once
// per process with `git ls-files -c -i --exclude-standard`.
type ignoreChecker struct {
	root, gitDir string
	logger       hclog.Logger

	mu       sync.Mutex
	proc     *checkIgnoreProc // nil until needed, and after a failure
	tracked  []string         // sorted tracked paths that patterns ignore, loaded with proc
	disabled bool             // git is unusable: nothing counts as ignored until reset
	closed   bool
}

// check asks git about path ("dir/" for a directory). When the process
// dies it is restarted once; a second failure disables the checker. A path
// git refuses (beyond a symlink) makes it exit too, but that is an answer,
// not a failure: the path is blind. A path starting with ":" is not asked
// at all: git would read it as pathspec magic.
func (c *ignoreChecker) check(path string) ignoreAnswer {
	if strings.HasPrefix(path, ":") {
		return ignoreAnswer{blind: true}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for attempt := 1; attempt <= 2; attempt++ {
		if c.disabled || c.closed {
			return ignoreAnswer{blind: true}
		}
		ans, err := c.ask(path)
		switch {
		case err == nil:
			ans.tracked = ans.ignored && c.holdsTracked(path)
			return ans
		case errors.Is(err, errPathspec):
			c.logger.Debug("git cannot check ignore rules for path; gating it", "path", path, "error", err)
			return ignoreAnswer{blind: true, linked: strings.Contains(err.Error(), "symbolic link")}
		case c.disabled:
			return ignoreAnswer{blind: true}
		}
		c.logger.Warn("git check-ignore failed", "path", path, "attempt", attempt, "error", err)
	}
	c.disabled = true
	c.logger.Error("git check-ignore keeps failing; nothing counts as ignored until the rule is invalidated")
	return ignoreAnswer{blind: true}
}

// holdsTracked reports whether path is a tracked file or, ending in "/", a
// directory holding one, among the tracked files that patterns ignore.
func (c *ignoreChecker) holdsTracked(path string) bool {
	i, found := slices.BinarySearch(c.tracked, path)
	if found {
		return true
	}
	return strings.HasSuffix(path, "/") && i < len(c.tracked) && strings.HasPrefix(c.tracked[i], path)
}

// errPathspec means git refused the path itself.
var errPathspec = errors.New("git refused the path")

// ask queries the running process, starting it if needed. Any error stops
// the process.
func (c *ignoreChecker) ask(path string) (ignoreAnswer, error) {
	if c.proc == nil {
		if err := c.start(); err != nil {
			return ignoreAnswer{}, err
		}
	}
	ans, err := c.proc.ask(path, checkIgnoreTimeout)
	if err == nil {
		return ans, nil
	}
	stderr := c.stopProc(true)
	if strings.Contains(strings.ToLower(stderr), "pathspec") {
		return ignoreAnswer{}, fmt.Errorf("%s: %w", stderr, errPathspec)
	}
	if stderr != "" {
		return ignoreAnswer{}, fmt.Errorf("%s: %w", stderr, err)
	}
	return ignoreAnswer{}, err
}

// start lists the tracked files that patterns ignore and starts the
// process.
func (c *ignoreChecker) start() error {
	out, err := runGit(c.root, c.env(), "ls-files", "-z", "--cached", "--ignored", "--exclude-standard")
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			c.disabled = true
			c.logger.Warn("git not found; nothing counts as ignored", "error", err)
		}
		return err
	}
	c.tracked = nil
	if out != "" {
		c.tracked = strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
		slices.Sort(c.tracked)
	}
	c.proc, err = startCheckIgnore(c.root, append(c.env(), "GIT_FLUSH=1"))
	return err
}

// env is the environment of git commands on the checkout.
func (c *ignoreChecker) env() []string {
	return gitEnv("GIT_DIR="+c.gitDir, "GIT_WORK_TREE="+c.root, "LC_ALL=C")
}

// reset stops the process, so that the next question starts a fresh one
// that rereads the ignore files and the index, and re-enables a disabled
// checker.
func (c *ignoreChecker) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopProc(false)
	c.disabled = false
}

// close stops the process for good.
func (c *ignoreChecker) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopProc(false)
	c.closed = true
}

func (c *ignoreChecker) stopProc(kill bool) string {
	if c.proc == nil {
		return ""
	}
	stderr := c.proc.stop(kill)
	c.proc = nil
	return stderr
}

// checkIgnoreProc is one running `git check-ignore`. Its pipes are blocking
// file descriptors, not the runtime poller's: a question is a write and a
// read that blocks its thread until git answers, which takes a quarter of
// the time a poller wake-up does (about 14 µs against 50 µs here). A timer
// kills a git that does not answer in time, which ends the read. As
// *os.File values, exec hands them to git without copying goroutines.
type checkIgnoreProc struct {
	cmd    *gitrun.Cmd
	in     *os.File // git's stdin
	out    *os.File // git's stdout
	r      *bufio.Reader
	stderr *tailBuffer
	query  []byte
}

func startCheckIgnore(root string, env []string) (*checkIgnoreProc, error) {
	inR, inW, err := blockingPipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := blockingPipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &checkIgnoreProc{in: inW, out: outR, stderr: &tailBuffer{max: 2048}}
	p.cmd = gitrun.Command(context.Background(), root, nil, "check-ignore", "--no-index", "--stdin", "-z", "--verbose", "--non-matching")
	p.cmd.Env = env
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, p.stderr
	err = p.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	p.r = bufio.NewReaderSize(outR, 2*gate.MaxPathLen+64)
	return p, nil
}

// ask writes path and reads git's answer: source, line, pattern and the
// path again, each NUL-terminated.
func (p *checkIgnoreProc) ask(path string, timeout time.Duration) (ignoreAnswer, error) {
	stuck := time.AfterFunc(timeout, func() { p.cmd.Process.Kill() })
	defer stuck.Stop()
	p.query = append(append(p.query[:0], path...), 0)
	if _, err := p.in.Write(p.query); err != nil {
		return ignoreAnswer{}, err
	}
	var f [3]string // source, line, pattern
	for i := range f {
		b, err := p.r.ReadSlice(0)
		if err != nil {
			return ignoreAnswer{}, err
		}
		f[i] = string(b[:len(b)-1])
	}
	b, err := p.r.ReadSlice(0)
	if err != nil {
		return ignoreAnswer{}, err
	}
	if echo := b[:len(b)-1]; string(echo) != path {
		return ignoreAnswer{}, fmt.Errorf("git check-ignore answered for %q, asked about %q", echo, path)
	}
	return answerOf(f[0], f[1], f[2]), nil
}

// answerOf interprets a verbose answer: no pattern means nothing matched
// (or the path is tracked); a "!" pattern re-includes the path.
func answerOf(source, line, pattern string) ignoreAnswer {
	if pattern == "" {
		return ignoreAnswer{}
	}
	return ignoreAnswer{
		ignored: !strings.HasPrefix(pattern, "!"),
		rule:    source + ":" + line + ": " + pattern,
	}
}

// stop ends the process: by closing its stdin (git exits at end of input),
// or by killing it when it is known to be broken. It returns the end of
// what git wrote to stderr.
func (p *checkIgnoreProc) stop(kill bool) string {
	p.in.Close()
	if kill {
		p.cmd.Process.Kill()
	}
	stuck := time.AfterFunc(time.Second, func() { p.cmd.Process.Kill() })
	p.cmd.Wait()
	stuck.Stop()
	p.out.Close()
	return strings.TrimSpace(p.stderr.String())
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
