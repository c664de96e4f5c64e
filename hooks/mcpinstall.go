package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MCPServerName is the name install registers leasegate's MCP server
// under in each agent's MCP configuration.
const MCPServerName = "leasegate"

// mcpFiles is where each agent reads its MCP servers: under the project
// root, and under the home directory for the user's own (--user).
var mcpFiles = map[Agent]struct{ project, user string }{
	ClaudeCode: {".mcp.json", ".claude.json"},
	Codex:      {filepath.Join(".codex", "config.toml"), filepath.Join(".codex", "config.toml")},
	Gemini:     {filepath.Join(".gemini", "settings.json"), filepath.Join(".gemini", "settings.json")},
	Cursor:     {filepath.Join(".cursor", "mcp.json"), filepath.Join(".cursor", "mcp.json")},
}

// MCPPath is the file install registers the MCP server in for agent a:
// under the project root base, or the home directory with user. Codex's
// user file is in $CODEX_HOME when that is set, Gemini CLI's under
// $GEMINI_CLI_HOME.
func MCPPath(a Agent, base string, user bool) string {
	f := mcpFiles[a]
	if !user {
		return filepath.Join(base, f.project)
	}
	if dir, ok := codexHome(); a == Codex && ok {
		return filepath.Join(dir, "config.toml")
	}
	if a == Gemini {
		base = geminiHome(base)
	}
	return filepath.Join(base, f.user)
}

// InstallMCP registers `exe mcp` as the MCP server "leasegate" in agent
// a's MCP configuration file at path, creating it if needed, with the
// same care as Install: only its own entry is added, laid out like the
// file, and a server of that name that is not leasegate's is left alone.
func InstallMCP(a Agent, path, exe string) ([]string, error) {
	e, lines, err := planMCP(a, path, exe)
	if err != nil || e.after == nil {
		return lines, err
	}
	return writeInstalled(path, e.existed, e.before, e.after, e.mode, e.did)
}

// CheckMCP returns the error InstallMCP would meet in the file at path
// (unreadable, not JSON or TOML, read-only, a foreign server of
// leasegate's name), writing nothing: install asks before it writes the
// hooks, so that it never leaves them without the MCP server.
func CheckMCP(a Agent, path, exe string) error {
	_, _, err := planMCP(a, path, exe)
	return err
}

// mcpEdit is what InstallMCP would write: after is nil when nothing.
type mcpEdit struct {
	existed       bool
	before, after []byte
	mode          fs.FileMode
	did           []string
}

// planMCP reads the file at path and makes the text with leasegate's
// server in it, or says why it changes nothing.
func planMCP(a Agent, path, exe string) (mcpEdit, []string, error) {
	if a == Codex {
		return planMCPTOML(path, exe)
	}
	data, mode, existed, err := readText(path)
	if err != nil {
		return mcpEdit{}, nil, err
	}
	before := data
	if existed {
		before, _ = os.ReadFile(path)
	}
	what, next, err := addMCPServer(a, data, exe)
	if err != nil || what == "" {
		lines, err := mcpLines(a, path, what, err)
		return mcpEdit{}, lines, err
	}
	if !existed {
		next = append(next, '\n')
	}
	return mcpEdit{existed: existed, before: before, after: next, mode: mode,
		did: []string{fmt.Sprintf("%s %s MCP server %q (%s mcp) to %s", what, a, MCPServerName, exe, path)}}, nil, nil
}

// writeInstalled writes what install made of a file and keeps the record
// that lets uninstall give back its bytes.
func writeInstalled(path string, existed bool, before, after []byte, mode fs.FileMode, did []string) ([]string, error) {
	created := missingDirs(filepath.Dir(path))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(path, after, mode); err != nil {
		return nil, err
	}
	if err := keepRecord(path, existed, before, after, created); err != nil {
		did = append(did, fmt.Sprintf("could not keep %s's original bytes for uninstall (%v): uninstall will remove leasegate's entries only", path, err))
	}
	return did, nil
}

// mcpLines says why install changed nothing.
func mcpLines(a Agent, path, what string, err error) ([]string, error) {
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	case what == "":
		return []string{fmt.Sprintf("%s MCP server already registered in %s", a, path)}, nil
	}
	return nil, nil
}

// errForeignServer means a server of leasegate's name that runs something
// else: install leaves it and says so.
var errForeignServer = errors.New("a server named " + MCPServerName + " that does not run `leasegate mcp` is there already: not touching it")

// mcpServer is the entry install writes.
func mcpServer(a Agent, exe string) *object {
	o := newObject()
	if a == ClaudeCode {
		_ = o.setValue("type", "stdio")
	}
	_ = o.setValue("command", exe)
	_ = o.setValue("args", []string{"mcp"})
	return o
}

// addMCPServer puts leasegate's server into data's "mcpServers", or
// updates it there. It returns "added", "updated" or "" and the text.
func addMCPServer(a Agent, data []byte, exe string) (string, []byte, error) {
	data, err := ensureMember(data, nil, "mcpServers", []byte("{}"))
	if err != nil {
		return "", nil, err
	}
	root, err := parseText(data)
	if err != nil {
		return "", nil, err
	}
	servers := root.member("mcpServers")
	if servers.kind != '{' {
		return "", nil, errors.New(`"mcpServers" is not an object`)
	}
	want, err := marshal(mcpServer(a, exe))
	if err != nil {
		return "", nil, err
	}
	have := servers.member(MCPServerName)
	switch {
	case have == nil:
		data, err = ensureMember(data, []string{"mcpServers"}, MCPServerName, want)
		return "added", data, err
	case !isOurServer(data[have.start:have.end]):
		return "", nil, errForeignServer
	case sameJSON(data[have.start:have.end], want):
		return "", data, nil
	}
	data, err = replaceNode(data, have, want, layout(data, root))
	return "updated", data, err
}

// isOurServer reports whether an MCP server entry runs `leasegate mcp`.
func isOurServer(raw []byte) bool {
	var s struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	return json.Unmarshal(raw, &s) == nil && isOursMCP(s.Command, s.Args)
}

func isOursMCP(command string, args []string) bool {
	return strings.HasPrefix(filepath.Base(command), "leasegate") && slices.Equal(args, []string{"mcp"})
}

// UninstallMCP removes leasegate's MCP server from the file at path:
// the file's bytes before install when nothing else changed since,
// otherwise exactly the entry (and the "mcpServers" it leaves empty).
func UninstallMCP(a Agent, path string) ([]string, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return []string{fmt.Sprintf("no %s MCP configuration at %s: nothing to remove", a, path)}, nil
	}
	rec, _ := readRecord(path)
	lines, err := uninstallMCP(a, path)
	if _, serr := os.Stat(path); err == nil && errors.Is(serr, fs.ErrNotExist) {
		lines = append(lines, removeEmptyDirs(rec.CreatedDirs)...)
	}
	return lines, err
}

func uninstallMCP(a Agent, path string) ([]string, error) {
	if lines, ok, err := restoreOriginal(a, path, "MCP server"); ok || err != nil {
		return lines, err
	}
	if a == Codex {
		return uninstallMCPTOML(path)
	}
	data, mode, _, err := readText(path)
	if err != nil {
		return nil, err
	}
	next, removed, err := removeMCPServer(data)
	if err != nil || !removed {
		if err == nil {
			return []string{fmt.Sprintf("no leasegate MCP server for %s in %s", a, path)}, nil
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	done := fmt.Sprintf("removed the %s MCP server %q from %s", a, MCPServerName, path)
	if root, err := parseObject(next); err == nil && root.len() == 0 {
		return []string{done, "removed " + path + ", left empty"}, os.Remove(path)
	}
	return []string{done}, writeFileAtomic(path, next, mode)
}

// removeMCPServer removes leasegate's server from data, with the
// "mcpServers" object it leaves empty.
func removeMCPServer(data []byte) ([]byte, bool, error) {
	root, err := parseText(data)
	if err != nil {
		return nil, false, err
	}
	servers := root.member("mcpServers")
	if servers == nil || servers.kind != '{' {
		return data, false, nil
	}
	for i, m := range servers.members {
		if m.key != MCPServerName || !isOurServer(data[m.val.start:m.val.end]) {
			continue
		}
		if len(servers.members) > 1 {
			return removeChild(data, servers, i), true, nil
		}
		for ri, rm := range root.members {
			if rm.key == "mcpServers" {
				return removeChild(data, root, ri), true, nil
			}
		}
	}
	return data, false, nil
}
