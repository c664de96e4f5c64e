package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// hookEntry is one hook install adds to an agent's settings.
type hookEntry struct {
	event   string
	matcher string // "" for events without one
}

// agentSettings describes where and how an agent reads its hooks.
type agentSettings struct {
	dir, file string // under the project root, or the home directory with --user
	// flat: each event lists handlers directly (Cursor), not matcher
	// groups of handlers.
	flat bool
	// version: the file carries "version": 1 (Cursor).
	version bool
	// execForm: the handler is command + args, run without a shell
	// (Claude Code); otherwise command is a shell line.
	execForm bool
	// timeout of one call, in the agent's unit: seconds, Gemini ms.
	timeout int64
	// failClosedOn names the event whose handler gets failClosed:true
	// (Cursor: a crashed hook then blocks instead of allowing).
	failClosedOn string
	entries      []hookEntry
}

var installSeconds = int64(InstallTimeout.Seconds())

// settingsOf is what install writes for each agent.
var settingsOf = map[Agent]agentSettings{
	ClaudeCode: {dir: ".claude", file: "settings.json", execForm: true, timeout: installSeconds, entries: []hookEntry{
		{"PreToolUse", "Write|Edit|MultiEdit|NotebookEdit"}, {"PreToolUse", "Bash"}, {"PostToolUse", "Bash"},
		{"UserPromptSubmit", ""}, {"Stop", ""}, {"SubagentStop", ""}, {"SessionEnd", ""},
	}},
	Codex: {dir: ".codex", file: "hooks.json", timeout: installSeconds, entries: []hookEntry{
		{"PreToolUse", "^apply_patch$"}, {"PreToolUse", "^Bash$"}, {"PostToolUse", "^Bash$"},
		{"UserPromptSubmit", ""}, {"Stop", ""},
	}},
	Gemini: {dir: ".gemini", file: "settings.json", timeout: InstallTimeout.Milliseconds(), entries: []hookEntry{
		{"BeforeTool", "write_file|replace"}, {"BeforeTool", "run_shell_command"}, {"AfterTool", "run_shell_command"},
		{"BeforeAgent", ""}, {"AfterAgent", ""}, {"SessionEnd", ""},
	}},
	Cursor: {dir: ".cursor", file: "hooks.json", flat: true, version: true, timeout: installSeconds, failClosedOn: "preToolUse", entries: []hookEntry{
		{"preToolUse", "Write|StrReplace|Delete"}, {"beforeSubmitPrompt", ""}, {"stop", ""},
	}},
}

// SettingsPath is the file install edits for agent a under base: the
// project root, or the home directory for a user-wide install.
func SettingsPath(a Agent, base string) string {
	s := settingsOf[a]
	return filepath.Join(base, s.dir, s.file)
}

// Install adds leasegate's hooks for agent a to the settings file at path,
// creating it if needed, and keeps everything else in it. The hooks run
// exe (an absolute path) as `exe hook AGENT`. Install recognizes its own
// handlers by that command, so running it again changes nothing, and a
// moved binary is updated in place. It returns what it did, one line each.
func Install(a Agent, path, exe string) ([]string, error) {
	s, ok := settingsOf[a]
	if !ok {
		return nil, fmt.Errorf("install: unknown agent %q", a)
	}
	root, mode, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	hooks, err := root.childObject("hooks")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var did []string
	for _, e := range s.entries {
		what, err := s.add(a, hooks, e, exe)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if what != "" {
			did = append(did, fmt.Sprintf("%s %s hook %s to %s", what, a, e.label(), path))
		}
	}
	if len(did) == 0 {
		return []string{fmt.Sprintf("%s hooks already installed in %s", a, path)}, nil
	}
	if s.version {
		if _, ok := root.get("version"); !ok {
			root.keys = append([]string{"version"}, root.keys...)
			root.vals["version"] = json.RawMessage("1")
		}
	}
	if err := root.setValue("hooks", hooks); err != nil {
		return nil, err
	}
	return did, writeSettings(path, root, mode)
}

func (e hookEntry) label() string {
	if e.matcher == "" {
		return e.event
	}
	return e.event + " " + e.matcher
}

// add puts the handler of e into hooks, or updates it where it is. It
// returns "added", "updated" or "" when it was there already.
func (s agentSettings) add(a Agent, hooks *object, e hookEntry, exe string) (string, error) {
	arr, err := hooks.childArray(e.event)
	if err != nil {
		return "", err
	}
	want, err := marshal(s.handler(a, e, exe))
	if err != nil {
		return "", err
	}
	what, arr, err := s.upsert(a, arr, e, want)
	if err != nil || what == "" {
		return what, err
	}
	return what, hooks.setValue(e.event, arr)
}

// upsert finds leasegate's handler for e in arr and makes it want, or
// appends it.
func (s agentSettings) upsert(a Agent, arr []json.RawMessage, e hookEntry, want json.RawMessage) (string, []json.RawMessage, error) {
	for i, raw := range arr {
		if s.flat {
			if isOurs(a, raw) && matcherOf(raw) == e.matcher {
				return replaced(arr, i, raw, want)
			}
			continue
		}
		if matcherOf(raw) != e.matcher {
			continue
		}
		g, err := parseObject(raw)
		if err != nil {
			continue
		}
		hs, err := g.childArray("hooks")
		if err != nil {
			continue
		}
		for j, h := range hs {
			if !isOurs(a, h) {
				continue
			}
			what, hs, _ := replaced(hs, j, h, want)
			if what != "" {
				if err := g.setValue("hooks", hs); err != nil {
					return "", nil, err
				}
				arr[i], _ = marshal(g)
			}
			return what, arr, nil
		}
	}
	return "added", append(arr, s.group(e, want)), nil
}

func replaced(arr []json.RawMessage, i int, have, want json.RawMessage) (string, []json.RawMessage, error) {
	if sameJSON(have, want) {
		return "", arr, nil
	}
	arr[i] = want
	return "updated", arr, nil
}

// group wraps a handler in a matcher group (or returns it, for flat
// settings, where the handler carries the matcher itself).
func (s agentSettings) group(e hookEntry, h json.RawMessage) json.RawMessage {
	if s.flat {
		return h
	}
	g := newObject()
	if e.matcher != "" {
		_ = g.setValue("matcher", e.matcher)
	}
	g.set("hooks", json.RawMessage("["+string(h)+"]"))
	raw, _ := marshal(g)
	return raw
}

// handler is the handler install writes for e.
func (s agentSettings) handler(a Agent, e hookEntry, exe string) *object {
	h := newObject()
	if !s.flat {
		_ = h.setValue("type", "command")
	}
	if s.execForm {
		_ = h.setValue("command", exe)
		_ = h.setValue("args", []string{"hook", string(a)})
	} else {
		_ = h.setValue("command", shellQuote(exe)+" hook "+string(a))
	}
	if s.flat && e.matcher != "" {
		_ = h.setValue("matcher", e.matcher)
	}
	_ = h.setValue("timeout", s.timeout)
	if s.failClosedOn == e.event {
		_ = h.setValue("failClosed", true)
	}
	return h
}

// Uninstall removes every handler of the settings file at path that runs
// `leasegate hook AGENT` for agent a, the groups and events left empty by
// that, and the file itself if nothing else is left in it.
func Uninstall(a Agent, path string) ([]string, error) {
	if _, ok := settingsOf[a]; !ok {
		return nil, fmt.Errorf("uninstall: unknown agent %q", a)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return []string{fmt.Sprintf("no %s settings at %s: nothing to remove", a, path)}, nil
	}
	root, mode, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	hooks, err := root.childObject("hooks")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	n := 0
	for _, ev := range slices.Clone(hooks.keys) {
		removed, err := removeOurs(a, hooks, ev)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		n += removed
	}
	if n == 0 {
		return []string{fmt.Sprintf("no leasegate hooks for %s in %s", a, path)}, nil
	}
	done := fmt.Sprintf("removed %d %s hook(s) from %s", n, a, path)
	if hooks.len() == 0 {
		root.del("hooks")
	} else if err := root.setValue("hooks", hooks); err != nil {
		return nil, err
	}
	if emptySettings(root, settingsOf[a]) {
		return []string{done, "removed " + path + ", left empty"}, os.Remove(path)
	}
	return []string{done}, writeSettings(path, root, mode)
}

// removeOurs drops leasegate's handlers from one event of hooks.
func removeOurs(a Agent, hooks *object, event string) (int, error) {
	arr, err := hooks.childArray(event)
	if err != nil {
		return 0, nil // not an array: not written by install
	}
	n := 0
	kept := arr[:0:0]
	for _, raw := range arr {
		if isOurs(a, raw) {
			n++
			continue
		}
		g, gn := withoutOurs(a, raw)
		n += gn
		if g != nil {
			kept = append(kept, g)
		}
	}
	switch {
	case n == 0:
		return 0, nil
	case len(kept) == 0:
		hooks.del(event)
		return n, nil
	}
	return n, hooks.setValue(event, kept)
}

// withoutOurs removes leasegate's handlers from a matcher group; it
// returns nil when the group is left with none.
func withoutOurs(a Agent, raw json.RawMessage) (json.RawMessage, int) {
	g, err := parseObject(raw)
	if err != nil {
		return raw, 0
	}
	hs, err := g.childArray("hooks")
	if err != nil || len(hs) == 0 {
		return raw, 0
	}
	kept := hs[:0:0]
	for _, h := range hs {
		if !isOurs(a, h) {
			kept = append(kept, h)
		}
	}
	switch n := len(hs) - len(kept); {
	case n == 0:
		return raw, 0
	case len(kept) == 0:
		return nil, n
	default:
		_ = g.setValue("hooks", kept)
		out, _ := marshal(g)
		return out, n
	}
}

func emptySettings(root *object, s agentSettings) bool {
	if root.len() == 0 {
		return true
	}
	v, ok := root.get("version")
	return s.version && ok && root.len() == 1 && string(v) == "1"
}

// isOurs reports whether a handler runs `leasegate hook AGENT` for a:
// a program whose name starts with "leasegate" and exactly those
// arguments, in exec form or as a shell line.
func isOurs(a Agent, raw json.RawMessage) bool {
	var h struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	return isOursCommand(a, h.Command, h.Args)
}

// isOursCommand reports whether command (a program with args, or a shell
// line when args is nil) runs `leasegate hook AGENT` for a.
func isOursCommand(a Agent, command string, args []string) bool {
	if command == "" {
		return false
	}
	prog, argv := command, args
	if argv == nil {
		words := shellWords(command)
		if len(words) == 0 {
			return false
		}
		prog, argv = words[0], words[1:]
	}
	return strings.HasPrefix(filepath.Base(prog), "leasegate") && slices.Equal(argv, []string{"hook", string(a)})
}

func matcherOf(raw json.RawMessage) string {
	var g struct {
		Matcher string `json:"matcher"`
	}
	_ = json.Unmarshal(raw, &g)
	return g.Matcher
}

func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// readSettings reads a settings file, or an empty object when there is
// none yet, and its mode.
func readSettings(path string) (*object, fs.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newObject(), 0o644, nil
	}
	if err != nil {
		return nil, 0, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return newObject(), fi.Mode().Perm(), nil
	}
	root, err := parseObject(data)
	if err != nil {
		return nil, 0, fmt.Errorf("%s is not a JSON object (%v): not touching it", path, err)
	}
	return root, fi.Mode().Perm(), nil
}

// writeSettings replaces the file atomically, laid out with two spaces.
func writeSettings(path string, root *object, mode fs.FileMode) error {
	raw, err := root.MarshalJSON()
	if err != nil {
		return err
	}
	data, err := indent(raw)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(path, data, mode)
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it over path.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), mode)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// InstalledCount is how many handlers install writes for a.
func InstalledCount(a Agent) int { return len(settingsOf[a].entries) }
