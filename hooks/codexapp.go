package hooks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// codexAskTimeout bounds one conversation with Codex's app server: it
// starts in about a second.
const codexAskTimeout = 30 * time.Second

// ErrCodexMissing is returned (wrapped) when no codex program can be run
// to ask about trust.
var ErrCodexMissing = errors.New("codex not found")

// codexApp is a conversation with `codex app-server` over its stdio
// transport: one JSON-RPC message a line. Codex itself answers what it
// trusts, so leasegate never recomputes Codex's hashes or reads its
// private files.
type codexApp struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	nextID int
	closed bool
}

// startCodexApp starts the app server of the codex program at codex (a
// name looked up in PATH, or a path) in dir and greets it.
func startCodexApp(ctx context.Context, codex, dir string) (*codexApp, error) {
	path, err := exec.LookPath(codex)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCodexMissing, err)
	}
	cmd := exec.CommandContext(ctx, path, "app-server")
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	ownGroup(cmd) // codex from npm is node running the native program
	a := &codexApp{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = a.stderr
	if a.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	a.out = bufio.NewReaderSize(out, 1<<16)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s app-server: %w", path, err)
	}
	init := map[string]any{"clientInfo": map[string]string{"name": "leasegate", "version": "1"}}
	if err := a.call("initialize", init, nil); err != nil {
		a.close()
		return nil, err
	}
	if err := a.send(map[string]any{"method": "initialized"}); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

// close ends the app server: it exits when its input closes; the
// context given to startCodexApp kills it otherwise.
func (a *codexApp) close() {
	if a.closed {
		return
	}
	a.closed = true
	_ = a.in.Close()
	_ = a.cmd.Wait()
}

func (a *codexApp) send(msg any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = a.in.Write(append(data, '\n'))
	return err
}

// call sends a request and decodes its result into result (unless nil),
// skipping the notifications that come before the answer.
func (a *codexApp) call(method string, params, result any) error {
	a.nextID++
	id := a.nextID
	if err := a.send(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return a.failed(method, err)
	}
	for {
		line, err := a.out.ReadBytes('\n')
		if err != nil {
			return a.failed(method, err)
		}
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != id {
			continue
		}
		if msg.Error != nil {
			return fmt.Errorf("codex app-server %s: %s", method, msg.Error.Message)
		}
		if result == nil {
			return nil
		}
		if err := json.Unmarshal(msg.Result, result); err != nil {
			return fmt.Errorf("codex app-server %s: unexpected answer: %w", method, err)
		}
		return nil
	}
}

// failed ends a broken conversation and explains it with what the app
// server said on stderr, its last line being the likeliest cause.
func (a *codexApp) failed(method string, err error) error {
	a.close()
	last := strings.TrimSpace(a.stderr.String())
	if i := strings.LastIndexByte(last, '\n'); i >= 0 {
		last = last[i+1:]
	}
	if last != "" {
		return fmt.Errorf("codex app-server %s: %w (stderr: %s)", method, err, last)
	}
	return fmt.Errorf("codex app-server %s: %w", method, err)
}
