package integration_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/leasegate/leasegate/mcp"
)

// functionMock is a loopback Responses API that answers the first request
// offering tool with a function call of it, and later ones with a
// message; it keeps the tool names offered and the call outputs.
type functionMock struct {
	srv     *httptest.Server
	tool    string // the namespace Codex offers a server's tools in
	fn      string
	args    string
	mu      sync.Mutex
	offered [][]string
	outputs []string
}

func newFunctionMock(t *testing.T, tool, fn, args string) *functionMock {
	m := &functionMock{tool: tool, fn: fn, args: args}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *functionMock) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Tools []map[string]any  `json:"tools"`
		Input []json.RawMessage `json:"input"`
	}
	_ = json.Unmarshal(body, &req)
	m.mu.Lock()
	var names []string
	offered := false
	for _, tl := range req.Tools {
		name := fmt.Sprint(tl["name"])
		if tl["name"] == nil {
			raw, _ := json.Marshal(tl)
			name = string(raw)
		}
		if ns, ok := tl["namespace"]; ok {
			name = fmt.Sprint(ns) + "/" + name
		}
		names = append(names, name)
		offered = offered || tl["name"] == m.tool
	}
	m.offered = append(m.offered, names)
	answered := false
	for _, in := range req.Input {
		var item struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		}
		if json.Unmarshal(in, &item) == nil && item.Type == "function_call_output" {
			answered = true
			m.outputs = append(m.outputs, string(item.Output))
		}
	}
	m.mu.Unlock()
	item := map[string]any{"type": "message", "role": "assistant", "id": "msg_1",
		"content": []any{map[string]any{"type": "output_text", "text": "done"}}}
	if offered && !answered {
		item = map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1", "namespace": m.tool, "name": m.fn, "arguments": m.args, "status": "completed"}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": "resp_1"}},
		{"type": "response.output_item.done", "item": item},
		{"type": "response.completed", "response": map[string]any{"id": "resp_1",
			"usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}},
	} {
		data, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], data)
	}
}

// useModel makes the Codex config in env ask for model.
func useModel(t *testing.T, env []string, model string) {
	t.Helper()
	for _, kv := range env {
		if home, ok := strings.CutPrefix(kv, "CODEX_HOME="); ok {
			p := filepath.Join(home, "config.toml")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = []byte(strings.Replace(string(data), `model = "gpt-5.5"`, fmt.Sprintf("model = %q", model), 1))
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func (m *functionMock) seen() ([][]string, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]string(nil), m.offered...), append([]string(nil), m.outputs...)
}

// TestCodexMCPCheck drives the real Codex CLI through a mock model: after
// `leasegate install codex --trust`, Codex starts `leasegate mcp` from
// the project's .codex/config.toml, and a leases_check call on a file
// another owner holds returns the holder to the model.
func TestCodexMCPCheck(t *testing.T) {
	codex := codexProgram(t)
	r := newRepo(t, map[string]string{"b.go": "package b\n"})
	registerSleeper(t, r, "bob")
	r.mustLG("acquire", "--as", "bob", "b.go")
	m := newFunctionMock(t, "mcp__leasegate", "leases_check", `{"paths":["b.go"]}`)
	env := codexEnv(t, r, codex, &responsesMock{srv: m.srv})
	// A model Codex does not offer tool search for: it lists MCP tools
	// directly (as the namespace mcp__leasegate), so one call reaches them.
	useModel(t, env, "gpt-4.1")
	install := exec.Command(bin, "install", "codex", "--trust")
	install.Dir, install.Env = r.dir, env
	if out, err := install.CombinedOutput(); err != nil || !strings.Contains(string(out), "config.toml") {
		t.Fatalf("install codex --trust: %v\n%s", err, out)
	}
	log := runCodex(t, r, codex, env)
	offered, outputs := m.seen()
	if len(outputs) == 0 {
		t.Fatalf("no leases_check output reached the model; tools offered %v\ncodex:\n%s", offered, log)
	}
	// Codex hands the model the structured content after a timing line.
	var text string
	if err := json.Unmarshal([]byte(outputs[len(outputs)-1]), &text); err != nil {
		t.Fatalf("output %s: %v", outputs[len(outputs)-1], err)
	}
	var chk mcp.CheckOutput
	_, body, _ := strings.Cut(text, "Output:\n")
	if err := json.Unmarshal([]byte(body), &chk); err != nil || len(chk.Paths) != 1 {
		t.Fatalf("leases_check output %q: %v", text, err)
	}
	b := chk.Paths[0]
	if b.State != mcp.HeldByOther || len(b.Holders) != 1 || b.Holders[0].Holder != "bob" || b.Holders[0].Liveness != "alive" {
		t.Errorf("b.go = %+v, want held by bob, alive", b)
	}
	if !strings.HasPrefix(chk.Me, "codex-") {
		t.Errorf("the server acted as %q, want the Codex session the hooks registered", chk.Me)
	}
}
