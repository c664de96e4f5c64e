package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// mcpTable is the header of leasegate's server in Codex's config.toml.
const mcpTable = "[mcp_servers." + MCPServerName + "]"

// codexServers is what install reads of a Codex config: its MCP servers.
type codexServers struct {
	MCPServers map[string]struct {
		Command string   `toml:"command"`
		Args    []string `toml:"args"`
	} `toml:"mcp_servers"`
}

// readTOML reads a Codex config whole, checking that it is TOML; a
// missing file reads as empty.
func readTOML(path string) (data []byte, mode fs.FileMode, existed bool, cfg codexServers, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, false, cfg, nil
	}
	if err != nil {
		return nil, 0, false, cfg, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, false, cfg, err
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return nil, 0, false, cfg, fmt.Errorf("%s is not TOML Codex can read (%v): not touching it", path, err)
	}
	return data, fi.Mode().Perm(), true, cfg, nil
}

// mcpBlock is the table install appends to a Codex config.
func mcpBlock(exe string) []byte {
	return []byte(mcpTable + "\ncommand = " + strconv.Quote(exe) + "\nargs = [\"mcp\"]\n")
}

// planMCPTOML appends leasegate's server table to a Codex config, or
// replaces the one install wrote before.
func planMCPTOML(path, exe string) (mcpEdit, []string, error) {
	data, mode, existed, cfg, err := readTOML(path)
	if err == nil && existed {
		err = writable(path, mode)
	}
	if err != nil {
		return mcpEdit{}, nil, err
	}
	have, ok := cfg.MCPServers[MCPServerName]
	switch {
	case ok && !isOursMCP(have.Command, have.Args):
		return mcpEdit{}, nil, fmt.Errorf("%s: %w", path, errForeignServer)
	case ok && have.Command == exe:
		return mcpEdit{}, []string{fmt.Sprintf("%s MCP server already registered in %s", Codex, path)}, nil
	}
	next, what := withMCPTable(data, exe, ok)
	return mcpEdit{existed: existed, before: data, after: next, mode: mode,
		did: []string{fmt.Sprintf("%s %s MCP server %q (%s mcp) to %s", what, Codex, MCPServerName, exe, path)}}, nil, nil
}

// withMCPTable is data with leasegate's table added at the end, or put in
// place of the one there (replace).
func withMCPTable(data []byte, exe string, replace bool) ([]byte, string) {
	if replace {
		from, to := tomlTable(data)
		return append(append(bytes.Clone(data[:from]), mcpBlock(exe)...), data[to:]...), "updated"
	}
	next := bytes.Clone(data)
	if len(next) > 0 && !bytes.HasSuffix(next, []byte("\n")) {
		next = append(next, '\n')
	}
	if len(next) > 0 {
		next = append(next, '\n')
	}
	return append(next, mcpBlock(exe)...), "added"
}

// tomlTable finds leasegate's table in data: from its header line to the
// next table's header (or the end), or (-1, -1).
func tomlTable(data []byte) (from, to int) {
	from, to = -1, -1
	for at := 0; at < len(data); {
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			end = len(data) - at - 1
		}
		line := strings.TrimSpace(string(data[at : at+end+1]))
		switch {
		case from < 0 && line == mcpTable:
			from = at
		case from >= 0 && strings.HasPrefix(line, "["):
			return from, at
		}
		at += end + 1
	}
	if from >= 0 {
		to = len(data)
	}
	return from, to
}

// uninstallMCPTOML removes leasegate's table from a Codex config, with
// the blank line install put before it.
func uninstallMCPTOML(path string) ([]string, error) {
	data, mode, existed, cfg, err := readTOML(path)
	if err == nil && existed {
		err = writable(path, mode)
	}
	if err != nil {
		return nil, err
	}
	have, ok := cfg.MCPServers[MCPServerName]
	from, to := tomlTable(data)
	if !ok || !isOursMCP(have.Command, have.Args) || from < 0 {
		return []string{fmt.Sprintf("no leasegate MCP server for %s in %s", Codex, path)}, nil
	}
	if from >= 2 && data[from-1] == '\n' && data[from-2] == '\n' {
		from--
	}
	next := append(bytes.Clone(data[:from]), data[to:]...)
	done := fmt.Sprintf("removed the %s MCP server %q from %s", Codex, MCPServerName, path)
	if len(bytes.TrimSpace(next)) == 0 {
		return []string{done, "removed " + path + ", left empty"}, os.Remove(path)
	}
	return []string{done}, writeFileAtomic(path, next, mode)
}
