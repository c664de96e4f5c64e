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
	// local is the agent's machine-specific project file beside file,
	// not shared with the team ("" when the agent has none).
	local string
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
	// failClosedOn names the event whose handlers gate a call and must
	// block it when the hook cannot run or crashes instead of allowing
	// it (without that, a moved binary, a crash or a timeout lets the
	// write through ungated). They get failClosed where the agent has a
	// member for it: Cursor's "failClosed": true, Claude Code's
	// "onFailure": "block". Codex and Gemini CLI have none: their
	// handlers run the fail-closed line (gatingCommand) instead.
	failClosedOn string
	failClosed   member
	entries      []hookEntry
}

var installSeconds = int64(InstallTimeout.Seconds())

// settingsOf is what install writes for each agent.
var settingsOf = map[Agent]agentSettings{
	ClaudeCode: {dir: ".claude", file: "settings.json", local: "settings.local.json", execForm: true, timeout: installSeconds,
		failClosedOn: "PreToolUse", failClosed: member{"onFailure", "block"}, entries: []hookEntry{
			{"PreToolUse", "Write|Edit|MultiEdit|NotebookEdit"}, {"PreToolUse", "Bash"}, {"PostToolUse", "Bash"},
			{"UserPromptSubmit", ""}, {"Stop", ""}, {"SubagentStop", ""}, {"SessionEnd", ""},
		}},
	Codex: {dir: ".codex", file: "hooks.json", timeout: installSeconds, failClosedOn: "PreToolUse", entries: []hookEntry{
		{"PreToolUse", "^apply_patch$"}, {"PreToolUse", "^Bash$"}, {"PostToolUse", "^Bash$"},
		{"UserPromptSubmit", ""}, {"Stop", ""},
	}},
	Gemini: {dir: ".gemini", file: "settings.json", timeout: InstallTimeout.Milliseconds(), failClosedOn: "BeforeTool", entries: []hookEntry{
		{"BeforeTool", "write_file|replace"}, {"BeforeTool", "run_shell_command"}, {"AfterTool", "run_shell_command"},
		{"BeforeAgent", ""}, {"AfterAgent", ""}, {"SessionEnd", ""},
	}},
	Cursor: {dir: ".cursor", file: "hooks.json", flat: true, version: true, timeout: installSeconds, failClosedOn: "preToolUse", failClosed: member{"failClosed", true}, entries: []hookEntry{
		{"preToolUse", "Write|StrReplace|Delete"}, {"beforeSubmitPrompt", ""}, {"stop", ""},
	}},
}

// member is one member of a JSON object install writes.
type member struct {
	key string
	val any
}

// SettingsPath is the file install edits for agent a under base: the
// project root, or the home directory for a user-wide install.
func SettingsPath(a Agent, base string) string {
	s := settingsOf[a]
	return filepath.Join(base, s.dir, s.file)
}

// UserSettingsPath is the file install edits for agent a with --user:
// under the home directory, except Codex's, which Codex reads beside its
// config.toml in $CODEX_HOME when that is set, and Gemini CLI's, under
// $GEMINI_CLI_HOME when that is set.
func UserSettingsPath(a Agent, home string) string {
	if dir, ok := codexHome(); a == Codex && ok {
		return filepath.Join(dir, settingsOf[a].file)
	}
	if a == Gemini {
		home = geminiHome(home)
	}
	return SettingsPath(a, home)
}

// codexHome is $CODEX_HOME, where Codex keeps the user's configuration
// in place of ~/.codex, and whether it is set.
func codexHome() (string, bool) {
	dir := os.Getenv("CODEX_HOME")
	return dir, dir != ""
}

// LocalSettingsPath is the agent's machine-specific settings file under
// the project root base (Claude Code's .claude/settings.local.json, which
// it keeps out of git), and whether the agent has one.
func LocalSettingsPath(a Agent, base string) (string, bool) {
	s := settingsOf[a]
	if s.local == "" {
		return "", false
	}
	return filepath.Join(base, s.dir, s.local), true
}

// Install adds leasegate's hooks for agent a to the settings file at path,
// creating it if needed. It adds only its own entries, laid out like the
// file's, and leaves every other byte as it was, so that Uninstall can
// give the same bytes back. The hooks run exe (an absolute path, or a
// name looked up in PATH) as
// `exe hook AGENT`. Install recognizes its own handlers by that command,
// so running it again changes nothing, and a moved binary is updated in
// place. It returns what it did, one line each.
func Install(a Agent, path, exe string) ([]string, error) {
	s, ok := settingsOf[a]
	if !ok {
		return nil, fmt.Errorf("install: unknown agent %q", a)
	}
	data, mode, existed, err := readText(path)
	if err != nil {
		return nil, err
	}
	lines, err := s.commands(a, exe)
	if err != nil {
		return nil, err
	}
	before := data
	if existed {
		before, _ = os.ReadFile(path)
	}
	if s.version {
		if data, err = ensureMember(data, nil, "version", []byte("1")); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	var did []string
	for _, e := range s.entries {
		what, next, err := s.add(a, data, e, exe, lines.of(s, e))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if what != "" {
			data = next
			did = append(did, fmt.Sprintf("%s %s hook %s to %s", what, a, e.label(), path))
		}
	}
	if len(did) == 0 {
		return append([]string{fmt.Sprintf("%s hooks already installed in %s", a, path)}, lines.notes()...), nil
	}
	if !existed {
		data = append(data, '\n')
	}
	written, err := writeInstalled(path, existed, before, data, mode, did)
	return append(written, lines.notes()...), err
}

// commands are the shell lines install writes for an agent's handlers:
// gating for those of its failClosedOn event where the agent has no
// member that makes them fail closed ("" otherwise), plain for the rest.
type commands struct{ plain, gating string }

// commands are the lines that run exe for a (none in exec form).
func (s agentSettings) commands(a Agent, exe string) (commands, error) {
	if s.execForm {
		return commands{}, nil
	}
	plain, err := hookCommand(a, exe)
	if err != nil {
		return commands{}, err
	}
	gating := ""
	if s.failClosedOn != "" && s.failClosed.key == "" {
		if gating, err = gatingCommand(a, exe); err != nil {
			return commands{}, err
		}
	}
	return commands{plain: plain, gating: gating}, nil
}

// notes say what the user should know of the lines: that the gating ones
// fail open, where no line can make them block (see gatingCommand).
func (c commands) notes() []string {
	if c.gating != "" && c.gating == c.plain {
		return []string{openGatingNote}
	}
	return nil
}

// of is the line of e's handler.
func (c commands) of(s agentSettings, e hookEntry) string {
	if e.event == s.failClosedOn && c.gating != "" {
		return c.gating
	}
	return c.plain
}

func (e hookEntry) label() string {
	if e.matcher == "" {
		return e.event
	}
	return e.event + " " + e.matcher
}

// ensureMember returns data with the member key added to the object at
// the path of keys from the root (nil: the root) when it is absent.
func ensureMember(data []byte, keys []string, key string, val []byte) ([]byte, error) {
	root, err := parseText(data)
	if err != nil {
		return nil, err
	}
	n := root
	for _, k := range keys {
		if n = n.member(k); n == nil {
			return nil, fmt.Errorf("%q is missing", k)
		}
	}
	if n.kind != '{' {
		return nil, fmt.Errorf("%q is not an object", keys[len(keys)-1])
	}
	if n.member(key) != nil {
		return data, nil
	}
	kb, _ := marshal(key)
	return appendChild(data, n, kb, val, layout(data, root))
}

// add puts the handler of e into data, or updates it where it is. It
// returns "added", "updated" or "" when it was there already, and the new
// text. The handler runs exe in exec form, or line in a shell.
func (s agentSettings) add(a Agent, data []byte, e hookEntry, exe, line string) (string, []byte, error) {
	data, err := ensureMember(data, nil, "hooks", []byte("{}"))
	if err != nil {
		return "", nil, err
	}
	if data, err = ensureMember(data, []string{"hooks"}, e.event, []byte("[]")); err != nil {
		return "", nil, err
	}
	root, err := parseText(data)
	if err != nil {
		return "", nil, err
	}
	unit, arr := layout(data, root), root.member("hooks").member(e.event)
	if arr.kind != '[' {
		return "", nil, fmt.Errorf("%q is not an array", e.event)
	}
	want, err := marshal(s.handler(a, e, exe, line))
	if err != nil {
		return "", nil, err
	}
	if have := s.find(a, data, arr, e); have != nil {
		if sameJSON(data[have.start:have.end], want) {
			return "", data, nil
		}
		data, err = replaceNode(data, have, want, unit)
		return "updated", data, err
	}
	data, err = appendChild(data, arr, nil, s.group(e, want), unit)
	return "added", data, err
}

// find returns leasegate's handler for e in the event's array, or nil.
func (s agentSettings) find(a Agent, data []byte, arr *jnode, e hookEntry) *jnode {
	for _, el := range arr.elems {
		raw := data[el.start:el.end]
		if s.flat {
			if isOurs(a, raw) && matcherOf(raw) == e.matcher {
				return el
			}
			continue
		}
		if el.kind != '{' || matcherOf(raw) != e.matcher {
			continue
		}
		if hs := el.member("hooks"); hs != nil && hs.kind == '[' {
			for _, h := range hs.elems {
				if isOurs(a, data[h.start:h.end]) {
					return h
				}
			}
		}
	}
	return nil
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
func (s agentSettings) handler(a Agent, e hookEntry, exe, line string) *object {
	h := newObject()
	if !s.flat {
		_ = h.setValue("type", "command")
	}
	if s.execForm {
		_ = h.setValue("command", exe)
		_ = h.setValue("args", []string{"hook", string(a)})
	} else {
		_ = h.setValue("command", line)
	}
	if s.flat && e.matcher != "" {
		_ = h.setValue("matcher", e.matcher)
	}
	_ = h.setValue("timeout", s.timeout)
	if s.failClosedOn == e.event && s.failClosed.key != "" {
		_ = h.setValue(s.failClosed.key, s.failClosed.val)
	}
	return h
}

// Uninstall removes every handler of the settings file at path that runs
// `leasegate hook AGENT` for agent a, the groups, events and hooks object
// left empty by that, and the file itself if nothing else is left in it.
// Each removal takes out the bytes Install added, so a file that changed
// in nothing else comes back byte for byte.
func Uninstall(a Agent, path string) ([]string, error) {
	s, ok := settingsOf[a]
	if !ok {
		return nil, fmt.Errorf("uninstall: unknown agent %q", a)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return []string{fmt.Sprintf("no %s settings at %s: nothing to remove", a, path)}, nil
	}
	rec, _ := readRecord(path)
	lines, err := uninstall(a, s, path)
	if _, serr := os.Stat(path); err == nil && errors.Is(serr, fs.ErrNotExist) {
		lines = append(lines, removeEmptyDirs(rec.CreatedDirs)...)
	}
	return lines, err
}

// uninstall is Uninstall of an existing file, leaving the directories.
func uninstall(a Agent, s agentSettings, path string) ([]string, error) {
	if lines, ok, err := restoreOriginal(a, path, "hooks"); ok || err != nil {
		return lines, err
	}
	data, mode, _, err := readText(path)
	if err != nil {
		return nil, err
	}
	n := 0
	for {
		next, removed, err := removeOne(a, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if !removed {
			break
		}
		data, n = next, n+1
	}
	if n == 0 {
		return []string{fmt.Sprintf("no leasegate hooks for %s in %s", a, path)}, nil
	}
	done := fmt.Sprintf("removed %d %s hook(s) from %s", n, a, path)
	if root, err := parseObject(data); err == nil && emptySettings(root, s) {
		return []string{done, "removed " + path + ", left empty"}, os.Remove(path)
	}
	return []string{done}, writeFileAtomic(path, data, mode)
}

// restoreOriginal gives the file back as it was before install when
// install's record says it is still exactly as install left it.
func restoreOriginal(a Agent, path, what string) ([]string, bool, error) {
	r, ok := readRecord(path)
	if !ok {
		return nil, false, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, false, nil
	}
	if err := writable(path, fi.Mode()); err != nil {
		return nil, true, err
	}
	defer dropRecord(path)
	data, err := os.ReadFile(path)
	if err != nil || digest(data) != r.After {
		return nil, false, nil
	}
	if !r.Existed {
		return []string{fmt.Sprintf("removed %s, which install had created for the %s %s", path, a, what)}, true, os.Remove(path)
	}
	done := fmt.Sprintf("removed the %s %s from %s: it is back to its bytes before install, without anything else install added", a, what, path)
	return []string{done}, true, writeFileAtomic(path, r.Before, fi.Mode().Perm())
}

// removeOne removes one of leasegate's handlers for a from data, with
// the group, event and hooks object it leaves empty.
func removeOne(a Agent, data []byte) ([]byte, bool, error) {
	root, err := parseText(data)
	if err != nil {
		return nil, false, err
	}
	hooks := root.member("hooks")
	if hooks == nil || hooks.kind != '{' {
		return data, false, nil
	}
	// drop removes element ei of arr, the event's array of hooks member
	// mi, and what that leaves empty.
	drop := func(mi int, arr *jnode, ei int) []byte {
		switch {
		case len(arr.elems) > 1:
			return removeChild(data, arr, ei)
		case len(hooks.members) > 1:
			return removeChild(data, hooks, mi)
		}
		for ri, m := range root.members {
			if m.key == "hooks" {
				return removeChild(data, root, ri)
			}
		}
		return data
	}
	for mi, m := range hooks.members {
		arr := m.val
		if arr.kind != '[' {
			continue
		}
		for ei, el := range arr.elems {
			if isOurs(a, data[el.start:el.end]) {
				return drop(mi, arr, ei), true, nil
			}
			hs := el.member("hooks")
			if el.kind != '{' || hs == nil || hs.kind != '[' {
				continue
			}
			for hi, h := range hs.elems {
				if !isOurs(a, data[h.start:h.end]) {
					continue
				}
				if len(hs.elems) == 1 {
					return drop(mi, arr, ei), true, nil
				}
				return removeChild(data, hs, hi), true, nil
			}
		}
	}
	return data, false, nil
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
// line when args is nil) runs `leasegate hook AGENT` for a, alone or in
// the fail-closed line.
func isOursCommand(a Agent, command string, args []string) bool {
	if command == "" {
		return false
	}
	prog, argv := command, args
	if argv == nil {
		words := commandWords(command)
		if len(words) == 0 {
			return false
		}
		var wrapped bool
		if prog, argv, wrapped = failClosedWords(words); !wrapped {
			prog, argv = words[0], words[1:]
		}
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

// readText reads a settings file whole, checking that it is a JSON
// object; a file that is missing or blank reads as "{}". It also returns
// the file's mode and whether it existed.
func readText(path string) ([]byte, fs.FileMode, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []byte("{}"), 0o644, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, false, err
	}
	if err := writable(path, fi.Mode()); err != nil {
		return nil, 0, false, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return []byte("{}"), fi.Mode().Perm(), false, nil
	}
	if n, err := parseText(data); err != nil || n.kind != '{' {
		if err == nil {
			err = errors.New("not a JSON object")
		}
		return nil, 0, false, fmt.Errorf("%s is not a JSON object (%v): not touching it", path, err)
	}
	return data, fi.Mode().Perm(), true, nil
}

// writable refuses a file its owner may not write. Install and
// uninstall replace a file by renaming a new one over it, which its
// directory allows whatever the file's mode, so a file the user made
// read-only (to freeze an agent's settings, say) would be changed behind
// that choice.
func writable(path string, mode fs.FileMode) error {
	if mode.Perm()&0o200 == 0 {
		return fmt.Errorf("%s is read-only (mode %04o): not touching it; make it writable (chmod u+w) for leasegate to edit it", path, mode.Perm())
	}
	return nil
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

// writeFileAtomic writes data to a temporary file beside path and renames
// it over path. A path that is a symbolic link has the file it names
// written, beside that file: settings are often links into the user's
// dotfiles repository, and a rename over the link would replace it with a
// copy that the dotfiles no longer track.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
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

// InstalledIn is how many of leasegate's handlers for a the settings file
// at path holds (0 when there is no such file or it cannot be read).
func InstalledIn(a Agent, path string) int {
	hs, err := installedHandlers(a, path)
	if err != nil {
		return 0
	}
	return len(hs)
}
