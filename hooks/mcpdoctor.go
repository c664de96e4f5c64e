package hooks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/leasegate/leasegate/internal/envname"
)

// MCPDiagnosis is what doctor finds of leasegate's MCP server in one of
// an agent's MCP configuration files.
type MCPDiagnosis struct {
	Agent Agent  `json:"agent"`
	File  string `json:"file"`
	// Registered says the file names a server "leasegate"; Command is
	// what it runs.
	Registered bool   `json:"registered"`
	Command    string `json:"command,omitempty"`
	// Problem says why the agent would get no leasegate tools from it,
	// with the fix; empty when the server answered.
	Problem string `json:"problem,omitempty"`
	// Server is the name and version the server gave in its answer to
	// initialize.
	Server string `json:"server,omitempty"`
}

// OK reports whether the server is registered and answered initialize.
func (d MCPDiagnosis) OK() bool { return d.Registered && d.Problem == "" }

// DiagnoseMCP reports whether leasegate's MCP server is registered in
// the agent's MCP configuration file, and whether the registered command
// exists and answers: it is started in root, sent the protocol's
// initialize over stdio, and closed.
func DiagnoseMCP(ctx context.Context, a Agent, root, file string) MCPDiagnosis {
	d := MCPDiagnosis{Agent: a, File: file}
	command, args, found, err := registeredMCP(a, file)
	switch {
	case err != nil:
		d.Registered, d.Problem = true, err.Error()
		return d
	case !found:
		return d
	}
	d.Registered = true
	d.Command = strings.Join(append([]string{command}, args...), " ")
	if !isOursMCP(command, args) {
		d.Problem = fmt.Sprintf("the server %q in %s runs `%s`, not `leasegate mcp`", MCPServerName, file, d.Command)
		return d
	}
	server, err := mcpAnswers(ctx, root, command, args)
	if err != nil {
		d.Problem = fmt.Sprintf("the registered command `%s` does not answer MCP initialize: %v; the agent then has no leasegate tools. Run `leasegate install %s` again", d.Command, err, a)
		return d
	}
	d.Server = server
	if p := geminiMCPUntrusted(a, root, file); p != "" {
		d.Problem = fmt.Sprintf("`%s` answers, but %s", d.Command, p)
	}
	return d
}

// geminiMCPUntrusted says why Gemini CLI would not start the MCP server
// registered in the project's file, where it loads that file only in a
// folder it trusts, or "".
func geminiMCPUntrusted(a Agent, root, file string) string {
	if a != Gemini || file != MCPPath(Gemini, root, false) {
		return ""
	}
	home, _ := os.UserHomeDir()
	return geminiTrustProblem(root, geminiHome(home))
}

// registeredMCP reads the server named leasegate from an MCP
// configuration file; a missing file, or one without it, is not found.
func registeredMCP(a Agent, file string) (command string, args []string, found bool, err error) {
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return "", nil, false, nil
	}
	if a == Codex {
		_, _, _, cfg, err := readTOML(file)
		if err != nil {
			return "", nil, false, err
		}
		s, ok := cfg.MCPServers[MCPServerName]
		return s.Command, s.Args, ok, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", nil, false, err
	}
	var cfg struct {
		Servers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return "", nil, false, fmt.Errorf("%s is not JSON the agent can read: %w", file, err)
	}
	s, ok := cfg.Servers[MCPServerName]
	return s.Command, s.Args, ok, nil
}

// mcpInitialize is the first message an MCP client sends.
const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"leasegate-doctor","version":"1"}}}` + "\n"

// mcpAnswers starts command in root as an agent would, sends initialize
// and returns the server's name and version from its answer. Closing
// stdin then ends the server; it is killed if it does not end. The server
// is told to start no coordinator (it answers initialize without one): a
// check must not leave a coordinator running where none ran.
func mcpAnswers(ctx context.Context, root, command string, args []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), envname.NoStart+"=1")
	cmd.WaitDelay = 5 * time.Second
	ownGroup(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return "", err
	}
	server, err := initialize(in, out)
	_ = in.Close()
	waitErr := cmd.Wait()
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "", fmt.Errorf("no answer within %s: it was killed, with what it started", time.Since(start).Round(time.Second))
	}
	if err != nil {
		if why := strings.TrimSpace(stderr.String()); why != "" {
			err = fmt.Errorf("%w (stderr: %s)", err, why)
		} else if waitErr != nil {
			err = fmt.Errorf("%w (%v)", err, waitErr)
		}
		return "", err
	}
	return server, nil
}

// initialize sends initialize on in and reads the answer from out.
func initialize(in io.Writer, out io.Reader) (string, error) {
	// A program that prints and exits without reading its input closes
	// the pipe before initialize is written: what it printed is still
	// the answer to judge, so a failed send is said only when it printed
	// nothing.
	_, sendErr := in.Write([]byte(mcpInitialize))
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return "", fmt.Errorf("read the answer: %w", err)
		}
		if sendErr != nil {
			return "", fmt.Errorf("send initialize: %w", sendErr)
		}
		return "", errors.New("it ended without answering")
	}
	var resp struct {
		Result *struct {
			ServerInfo struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"serverInfo"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
		return "", fmt.Errorf("its answer is not JSON-RPC (%.80q): %w", sc.Text(), err)
	}
	switch {
	case resp.Error != nil:
		return "", fmt.Errorf("it refused initialize: %s", resp.Error.Message)
	case resp.Result == nil || resp.Result.ServerInfo.Name == "":
		return "", fmt.Errorf("its answer names no server (%.80q)", sc.Text())
	}
	return strings.TrimSpace(resp.Result.ServerInfo.Name + " " + resp.Result.ServerInfo.Version), nil
}
