package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/workspace"
)

// common holds the flags every command that talks to a coordinator takes.
type common struct {
	dir      string
	jsonOut  bool
	windows  gate.Windows // named by --retry-after/--idle-after or the environment
	logLevel string
	noStart  bool
	// clock times the waits for a coordinator to start or stop; nil means
	// the real clock (tests set a mock).
	clock clock.Clock
}

func (c *common) register(fs *flag.FlagSet, waits bool) {
	fs.StringVar(&c.dir, "workspace", "", "workspace directory (default: the git checkout around the current directory)")
	fs.BoolVar(&c.jsonOut, "json", false, "print JSON instead of text")
	fs.StringVar(&c.logLevel, "log-level", envOr(envname.LogLevel, "warn"), "log level: trace, debug, info, warn, error or off (env "+envname.LogLevel+")")
	noStart, _ := noStartEnv() // a value it refuses is a usage error in parse
	fs.BoolVar(&c.noStart, "no-start", noStart, "do not start a coordinator if none is running (env "+envname.NoStart+"=1)")
	if waits {
		registerWindows(fs, &c.windows)
	}
}

// startsNothing says in the help of a command that starts no coordinator
// that its --no-start changes nothing: the flag is taken, so that a
// script may pass it to every command, but its usage read as if the
// command would otherwise start one.
func startsNothing(fs *flag.FlagSet) {
	fs.Lookup("no-start").Usage = "changes nothing: this command starts no coordinator (taken so that a script may pass it to every command)"
}

// noStartEnv reports whether LEASEGATE_NO_START asks for --no-start: a
// value strconv.ParseBool takes (1, true, 0, false, ...), unset or empty
// being false. Any other value is refused: taken for "start", a
// coordinator the caller meant not to start would be started.
func noStartEnv() (bool, error) {
	v := os.Getenv(envname.NoStart)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want 1 (or 0, true, false)", envname.NoStart, v)
	}
	return b, nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// durationFlag is a flag of a positive duration whose default comes from
// an environment variable. A value that is not one is a usage error from
// either place, naming where it came from: taken for the default, a bound
// the user set would silently not hold.
type durationFlag struct {
	d      *time.Duration
	envErr error // an unusable environment value, reported unless the flag is given
}

func newDurationFlag(d *time.Duration, def time.Duration, env string) *durationFlag {
	f := &durationFlag{d: d}
	*d = def
	if v := os.Getenv(env); v != "" {
		if e, err := positiveDuration(v); err != nil {
			f.envErr = fmt.Errorf("%s=%q: %w", env, v, err)
		} else {
			*d = e
		}
	}
	return f
}

func positiveDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, errors.New("want a positive duration like 5s")
	}
	return d, nil
}

func (f *durationFlag) Set(v string) error {
	d, err := positiveDuration(v)
	if err != nil {
		return err
	}
	*f.d, f.envErr = d, nil
	return nil
}

func (f *durationFlag) String() string {
	if f == nil || f.d == nil {
		return ""
	}
	return f.d.String()
}

func (f *durationFlag) envError() error { return f.envErr }

// uintFlag is a flag of a number >= 0 whose refusal says what the number
// is: the flag package's own says only "parse error".
type uintFlag struct {
	n    *uint64
	what string // "a sequence number >= 0 (an event's seq)"
}

func (f *uintFlag) Set(v string) error {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return errors.New("want " + f.what)
	}
	*f.n = n
	return nil
}

func (f *uintFlag) String() string {
	if f == nil || f.n == nil {
		return "0"
	}
	return strconv.FormatUint(*f.n, 10)
}

func (c *common) logger(name string) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: name, Level: hclog.LevelFromString(c.logLevel), Output: os.Stderr})
}

// workspace finds the workspace for this invocation.
func (c *common) workspace() (*workspace.Workspace, error) {
	dir := c.dir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	} else if st, err := os.Stat(dir); err != nil {
		return nil, usagef("--workspace %s: %v", c.dir, errors.Unwrap(err))
	} else if !st.IsDir() {
		return nil, usagef("--workspace %s: not a directory", c.dir)
	}
	ws, err := workspace.Find(dir)
	if err == nil && c.dir != "" && ws.Submodule != "" {
		outer := "its superproject's workspace"
		if ws.Nested == workspace.NestedWorktree {
			outer = "the workspace of the checkout around it"
		}
		fmt.Fprintf(os.Stderr, "leasegate: --workspace %s is in the %s %s: using %s %s, which gates the whole tree\n", c.dir, ws.Nested, ws.Submodule, outer, ws.Root)
	}
	return ws, err
}

// client connects to the workspace's coordinator, starting one if none
// answers (unless --no-start).
func (c *common) client(ctx context.Context) (*api.Client, *workspace.Workspace, error) {
	ws, err := c.workspace()
	if err != nil {
		return nil, nil, err
	}
	if err := c.chosen(ws); err != nil {
		return nil, nil, err
	}
	cl, err := c.dial(ctx, ws, dialConfig{Start: true, Health: true})
	if isNoCoordinator(err) && c.noStart {
		return nil, nil, fmt.Errorf("%w (and --no-start is set)", err)
	}
	if err != nil {
		return nil, nil, err
	}
	return cl, ws, nil
}

// chosen refuses to make a workspace of a directory outside any git
// checkout that nobody named as one: --workspace or a leasegate.json
// there names it.
func (c *common) chosen(ws *workspace.Workspace) error {
	if ws.GitDir != "" || c.dir != "" {
		return nil
	}
	if _, err := os.Stat(filepath.Join(ws.Root, workspace.ConfigFile)); err == nil {
		return nil
	}
	return usagef("%s: leasegate would gate it as a workspace of its own (state in %s); "+
		"say so with --workspace %s, or put a %s there", notCheckout(ws.Root), ws.StateDir, ws.Root, workspace.ConfigFile)
}

// notCheckout says that root is in no git checkout, naming GIT_DIR and
// GIT_WORK_TREE when they are set: git, told by them, would say it is.
func notCheckout(root string) string {
	env := workspace.GitEnvNotFollowed()
	if env == "" {
		return root + " is not in a git checkout"
	}
	return fmt.Sprintf("%s is not in a git checkout (%s in the environment, which leasegate does not follow: it finds a checkout "+
		"by a .git in the directory or above it, so a bare repository with a separate work tree, as dotfile managers "+
		"keep, is no checkout to it)", root, env)
}

func withoutEnv(env []string, keys ...string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(keys, name) {
			out = append(out, kv)
		}
	}
	return out
}

// parse parses flags, turning errors into usage errors.
func parse(fs *flag.FlagSet, args []string) error {
	if flagCollector != nil {
		flagCollector(fs)
		return errCollected
	}
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(os.Stdout, fs)
			return &exitStatus{code: exitOK}
		}
		return usagef("%s: %v (leasegate help %s)", fs.Name(), err, fs.Name())
	}
	if err := checkLogLevel(fs); err != nil {
		return err
	}
	if fs.Lookup("no-start") != nil {
		if _, err := noStartEnv(); err != nil {
			return usagef("%s: %v", fs.Name(), err)
		}
	}
	return checkEnv(fs)
}

// logLevels are the values --log-level takes.
var logLevels = []string{"trace", "debug", "info", "warn", "error", "off"}

// checkLogLevel refuses a --log-level (or LEASEGATE_LOG_LEVEL) that is
// not a level: hclog would take it silently for another.
func checkLogLevel(fs *flag.FlagSet) error {
	f := fs.Lookup("log-level")
	if f == nil {
		return nil
	}
	v := strings.ToLower(strings.TrimSpace(f.Value.String()))
	if slices.Contains(logLevels, v) {
		return nil
	}
	return usagef("%s: %s is not a level; want one of %s", fs.Name(), givenAs(fs, "log-level", envname.LogLevel), strings.Join(logLevels, ", "))
}

// givenAs names a flag's value for an error about it as the user gave it:
// `--NAME "V"` when the flag was on the command line, else `ENV="V"`, the
// variable that set its default, so the message names what to change.
func givenAs(fs *flag.FlagSet, name, env string) string {
	v := fs.Lookup(name).Value.String()
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	if !given && os.Getenv(env) != "" {
		return fmt.Sprintf("%s=%q", env, v)
	}
	return fmt.Sprintf("--%s %q", name, v)
}

// parseMixed parses flags that may come before or after positional
// arguments (`acquire 'docs/**' --ttl 72h`) and returns the positionals.
// Everything after "--" is positional.
func parseMixed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// parseNone parses the flags of command name, which takes no positional
// argument: one given is a usage error naming it, never ignored.
func parseNone(name string, fs *flag.FlagSet, args []string) error {
	pos, err := parseMixed(fs, args)
	if err == nil && len(pos) > 0 {
		err = usagef("%s: takes no arguments, got %q", name, pos[0])
	}
	return err
}
