package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"
)

// answerTimeout bounds the trial call of an installed hook command.
const answerTimeout = 30 * time.Second

// Diagnosis is what doctor finds of one agent's settings file.
type Diagnosis struct {
	Agent Agent  `json:"agent"`
	File  string `json:"file"`
	// Installed counts leasegate's handlers in File; Want is how many
	// install writes.
	Installed int `json:"installed"`
	Want      int `json:"want"`
	// Problems says what keeps the hooks from gating, each with its fix;
	// none means they are installed, trusted and answering.
	Problems []string `json:"problems,omitempty"`
	// Notes are what was checked and found well.
	Notes []string `json:"notes,omitempty"`
}

// OK reports whether the hooks are installed, trusted and answering.
func (d Diagnosis) OK() bool { return d.Installed > 0 && len(d.Problems) == 0 }

// DoctorConfig says how to check an agent.
type DoctorConfig struct {
	// Root is the workspace; File the agent's settings file.
	Root, File string
	// Codex is the codex program to ask about trust: a name looked up in
	// PATH, or a path. Empty means "codex".
	Codex string
	// Home is the user's home directory, where Claude Code reads the
	// user's settings. Empty means os.UserHomeDir.
	Home string
}

// Diagnose reports whether leasegate's hooks for a in cfg.File are
// installed, whether the agent will run them (for Codex, whether it
// trusts them), and whether the installed command answers a call that
// asks nothing of the coordinator.
func Diagnose(ctx context.Context, a Agent, cfg DoctorConfig) Diagnosis {
	s := settingsOf[a]
	d := Diagnosis{Agent: a, File: cfg.File, Want: len(s.entries)}
	if _, err := os.Stat(cfg.File); errors.Is(err, fs.ErrNotExist) {
		return d.leftover(a, cfg)
	}
	hs, err := installedHandlers(a, cfg.File)
	if err != nil {
		d.Problems = append(d.Problems, err.Error())
		return d
	}
	d.Installed = len(hs)
	if d.Installed == 0 {
		return d.leftover(a, cfg)
	}
	if d.Installed < d.Want {
		d.Problems = append(d.Problems, fmt.Sprintf("%d of %d hooks installed; run `leasegate install %s` again", d.Installed, d.Want, a))
	}
	if a == Codex {
		d.diagnoseCodex(ctx, cfg)
	}
	if a == Gemini {
		d.Problems = append(d.Problems, GeminiProblems(cfg.Root, cfg.File, cfg.home())...)
		if p := hooksOnMissing(ctx, cfg.Root); p != "" {
			d.Problems = append(d.Problems, p)
		}
	}
	if p := openOnFailureProblem(a, cfg.File); p != "" {
		d.Problems = append(d.Problems, p)
	}
	if a == ClaudeCode {
		if off := claudeHooksOff(cfg); off != "" {
			d.Problems = append(d.Problems, fmt.Sprintf("Claude Code runs no hooks: %s sets \"disableAllHooks\" (its settings files override each other: the user's, the project's, then .claude/settings.local.json); remove it there, or set it to false in a file read after it", off))
		}
	}
	if err := answers(ctx, a, hs[0], cfg.Root); err != nil {
		d.Problems = append(d.Problems, err.Error())
	} else {
		d.Notes = append(d.Notes, "the installed command answers")
	}
	return d
}

// leftover adds, where none of leasegate's hooks are in cfg.File, the
// trust `install codex --trust` wrote for them that is still in Codex's
// config.
func (d Diagnosis) leftover(a Agent, cfg DoctorConfig) Diagnosis {
	if a != Codex {
		return d
	}
	if p := LeftoverCodexTrust(cfg.File); p != "" {
		d.Problems = append(d.Problems, p)
	}
	return d
}

func (d *Diagnosis) diagnoseCodex(ctx context.Context, cfg DoctorConfig) {
	codex := cfg.Codex
	if codex == "" {
		codex = "codex"
	}
	t, err := CodexTrustOf(ctx, codex, cfg.Root, cfg.File)
	if err != nil {
		d.Problems = append(d.Problems, fmt.Sprintf("cannot tell whether Codex runs these hooks: %v. Codex runs a project's hooks only once the project and each hook are trusted: start `codex` in %s, trust the folder, and trust leasegate's hooks when Codex says hooks need review", err, cfg.Root))
		return
	}
	if p := t.Problem(d.Want); p != "" {
		d.Problems = append(d.Problems, p)
		return
	}
	d.Notes = append(d.Notes, t.Verdict())
}

// home is cfg.Home, or else the user's home directory.
func (cfg DoctorConfig) home() string {
	if cfg.Home != "" {
		return cfg.Home
	}
	home, _ := os.UserHomeDir()
	return home
}

// claudeHooksOff returns the Claude Code settings file whose
// "disableAllHooks" turns off every hook, or "". Claude Code reads the
// user's file, the project's shared file, then its local one, each
// overriding the ones before, and takes any value but false or null
// (the string "false" included) as true.
func claudeHooksOff(cfg DoctorConfig) string {
	home := cfg.home()
	files := []string{SettingsPath(ClaudeCode, cfg.Root)}
	if home != "" {
		files = append([]string{SettingsPath(ClaudeCode, home)}, files...)
	}
	if local, ok := LocalSettingsPath(ClaudeCode, cfg.Root); ok {
		files = append(files, local)
	}
	off := ""
	for _, f := range files {
		root, _, err := readSettings(f)
		if err != nil {
			continue
		}
		if v, ok := root.get("disableAllHooks"); ok {
			switch strings.TrimSpace(string(v)) {
			case "false", "null", `"false"`:
				off = ""
			default:
				off = f
			}
		}
	}
	return off
}

// openOnFailureProblem says how many of leasegate's gating handlers in
// the file an older install wrote to fail open, and the fix; "" when none.
func openOnFailureProblem(a Agent, path string) string {
	s := settingsOf[a]
	n := openOnFailure(a, path)
	switch {
	case n == 0:
		return ""
	case s.failClosed.key == "":
		fix := fmt.Sprintf("run `leasegate install %s` again", a)
		if a == Codex {
			fix += " (then `leasegate install codex --trust`: Codex runs a changed hook only once it is trusted again)"
		}
		return fmt.Sprintf("%d of leasegate's %s hooks run leasegate alone, as an older install wrote them: when it cannot run "+
			"(a moved binary) or dies without an answer, %s lets the write through; the line install writes now blocks it; %s", n, s.failClosedOn, a, fix)
	}
	val, _ := marshal(s.failClosed.val)
	return fmt.Sprintf("%d of leasegate's %s hooks lack %q: %s (an older install), so a hook that cannot run "+
		"(a moved binary, a crash, a timeout) lets the write through; run `leasegate install %s` again", n, s.failClosedOn, s.failClosed.key, bytes.TrimSpace(val), a)
}

// openOnFailure counts leasegate's handlers in the file that install now
// writes to fail closed (failClosedOn) but that lack the member or the
// line that makes them.
func openOnFailure(a Agent, path string) int {
	s := settingsOf[a]
	if s.failClosedOn == "" {
		return 0
	}
	root, _, err := readSettings(path)
	if err != nil {
		return 0
	}
	hooks, err := root.childObject("hooks")
	if err != nil {
		return 0
	}
	arr, _ := hooks.childArray(s.failClosedOn)
	want, _ := marshal(s.failClosed.val)
	n := 0
	open := func(raw json.RawMessage) {
		h, err := parseObject(raw)
		ours := oursIn(a, raw)
		if err != nil || len(ours) == 0 {
			return
		}
		if s.failClosed.key == "" {
			if failsOpen(ours[0].command) {
				n++
			}
			return
		}
		if v, ok := h.get(s.failClosed.key); !ok || !sameJSON(v, want) {
			n++
		}
	}
	for _, raw := range arr {
		open(raw)
		if g, err := parseObject(raw); err == nil {
			hs, _ := g.childArray("hooks")
			for _, h := range hs {
				open(h)
			}
		}
	}
	return n
}

// handlerCmd is an installed handler's command: a program with args, or
// a shell line (args nil).
type handlerCmd struct {
	command string
	args    []string
}

// installedHandlers lists leasegate's handlers for a in the file.
func installedHandlers(a Agent, path string) ([]handlerCmd, error) {
	root, _, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	hooks, err := root.childObject("hooks")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []handlerCmd
	for _, ev := range hooks.keys {
		arr, err := hooks.childArray(ev)
		if err != nil {
			continue
		}
		for _, raw := range arr {
			out = append(out, oursIn(a, raw)...)
			g, err := parseObject(raw)
			if err != nil {
				continue
			}
			hs, _ := g.childArray("hooks")
			for _, h := range hs {
				out = append(out, oursIn(a, h)...)
			}
		}
	}
	return out, nil
}

func oursIn(a Agent, raw json.RawMessage) []handlerCmd {
	var h struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(raw, &h) != nil || !isOursCommand(a, h.Command, h.Args) {
		return nil
	}
	return []handlerCmd{{command: h.Command, args: h.Args}}
}

// harmless is a call of each agent's hook that asks nothing of the
// coordinator: a read-only tool, which the hook allows at once.
var harmless = map[Agent]string{
	ClaudeCode: `{"session_id":"leasegate-doctor","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"README.md"},"cwd":%q}`,
	Codex:      `{"session_id":"leasegate-doctor","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{},"cwd":%q}`,
	Gemini:     `{"session_id":"leasegate-doctor","hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":"README.md"},"cwd":%q}`,
	Cursor:     `{"conversation_id":"leasegate-doctor","hook_event_name":"preToolUse","tool_name":"Read","tool_input":{"file_path":"README.md"},"cwd":%q}`,
}

// answers runs the installed command as the agent would, on a harmless
// call, and wants it to allow the call (exit 0).
func answers(ctx context.Context, a Agent, h handlerCmd, root string) error {
	ctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	var cmd *exec.Cmd
	shown := h.command
	if h.args != nil {
		cmd = exec.CommandContext(ctx, h.command, h.args...)
		shown = strings.Join(append([]string{h.command}, h.args...), " ")
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", h.command)
	}
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(fmt.Sprintf(harmless[a], root))
	cmd.WaitDelay = 5 * time.Second
	ownGroup(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the installed command `%s` does not answer a harmless call within %s: it was killed, with what it started; the agent waits as long for every call, or lets it through. Run `leasegate doctor` again, and `leasegate install %s` if it still does not answer", shown, time.Since(start).Round(time.Second), a)
	}
	why := strings.TrimSpace(stderr.String())
	if why == "" {
		why = "no message"
	}
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == ExitBlock {
		// The hook ran and refused: its settings (flags, LEASEGATE_*
		// variables) are refused, and so is every call until they are
		// mended. The agent blocks, it does not let writes through.
		return fmt.Errorf("the installed command `%s` refuses even a harmless call (%s); the agent's every tool call is refused until that is mended", shown, why)
	}
	return fmt.Errorf("the installed command `%s` does not answer a harmless call: %v (%s); the agent then lets every write through. Run `leasegate install %s` again", shown, err, why, a)
}
