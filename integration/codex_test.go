package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// codexProgram is the real Codex CLI the Codex tests drive: the path in
// LEASEGATE_TEST_CODEX (which .ci/run sets after installing the pinned
// npm package), else codex on PATH.
func codexProgram(t *testing.T) string {
	return realProgram(t, "LEASEGATE_TEST_CODEX", "codex", "Codex")
}

// realProgram is a real agent CLI: the path in env (which .ci/run sets
// after installing the pinned npm package; a path that is not there
// fails the test), else name on PATH, else the test is skipped saying so.
func realProgram(t *testing.T, env, name, desc string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s: %v", env, p, err)
		}
		return p
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("the real %s CLI is not installed (.ci/run installs it and sets %s)", desc, env)
	}
	return p
}

// codexPatch is the patch the mock model asks Codex to apply.
const codexPatch = "*** Begin Patch\n*** Update File: f.txt\n@@\n-old\n+new\n*** End Patch\n"

// responsesMock is a loopback stand-in for the Responses API: a request
// that carries n tool results is answered with the script's call n, when
// the request offers its tool (apply_patch as a freeform custom tool call,
// which gpt-5.5's tool list offers; any other as a function call), and
// anything else with a plain message. It keeps the tool results Codex
// sends back.
type responsesMock struct {
	srv *httptest.Server
	modelScript
	hold    *turnHold // set before the agent starts
	outputs []string  // every tool result of every request, under mu: one mock may serve several runs
}

// newResponsesMock is a mock model that applies codexPatch.
func newResponsesMock(t *testing.T) *responsesMock {
	return newPatchMock(t, codexPatch)
}

// newPatchMock is a mock model that applies patch.
func newPatchMock(t *testing.T, patch string) *responsesMock {
	return newScriptedResponses(t, toolCall{"apply_patch", patch})
}

// newScriptedResponses is a mock model that makes the calls of script in
// turn, each once the previous one's result is back; an apply_patch
// call's input is the patch itself, any other's its JSON arguments.
func newScriptedResponses(t *testing.T, script ...toolCall) *responsesMock {
	m := &responsesMock{modelScript: modelScript{script: script}}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

// responsesRequest is what the mock reads of a request.
type responsesRequest struct {
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Input []struct {
		Type   string          `json:"type"`
		Output json.RawMessage `json:"output"`
	} `json:"input"`
}

func (m *responsesMock) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r)
		return
	}
	var req responsesRequest
	_ = json.Unmarshal(body, &req)
	var names, results []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name)
	}
	for _, in := range req.Input {
		if in.Type == "custom_tool_call_output" || in.Type == "function_call_output" {
			results = append(results, string(in.Output))
		}
	}
	call, n, _, ok := m.next(names, results)
	if len(results) > 0 {
		m.mu.Lock()
		m.outputs = append(m.outputs, results...)
		m.mu.Unlock()
		m.hold.wait(r.Context())
	}
	item := map[string]any{"type": "message", "role": "assistant", "id": "msg_1",
		"content": []any{map[string]any{"type": "output_text", "text": "done"}}}
	switch {
	case ok && call.tool == "apply_patch":
		item = map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%d", n), "call_id": fmt.Sprintf("call_%d", n),
			"name": call.tool, "input": call.input, "status": "completed"}
	case ok:
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%d", n),
			"name": call.tool, "arguments": call.input, "status": "completed"}
	}
	events := []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": "resp_1"}},
		{"type": "response.output_item.done", "item": item},
		{"type": "response.completed", "response": map[string]any{"id": "resp_1",
			"usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}},
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range events {
		data, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], data)
	}
}

// toolOutputs returns the tool results Codex sent back, in order, of
// every run the mock served.
func (m *responsesMock) toolOutputs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.outputs...)
}

// codexEnv is the environment of a Codex run with its own home, whose
// config points the model at the mock.
func codexEnv(t *testing.T, r *repo, codex string, m *responsesMock) []string {
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\nname = \"mock\"\nbase_url = %q\nwire_api = \"responses\"\n",
		m.srv.URL+"/v1")
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return append(append([]string(nil), r.env...), "HOME="+home, "CODEX_HOME="+codexHome,
		"PATH="+filepath.Dir(codex)+string(os.PathListSeparator)+os.Getenv("PATH"), "LEASEGATE_CODEX="+codex)
}

// runCodex runs `codex exec` once in the repo: the mock makes it apply
// its patch (codexPatch to f.txt).
func runCodex(t *testing.T, r *repo, codex string, env []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := codexCommand(ctx, r, codex, env)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out.String())
	}
	return out.String()
}

// startCodex starts `codex exec` in the repo in the background.
func startCodex(t *testing.T, r *repo, codex string, env []string) *worker {
	t.Helper()
	return startProcess(t, codexCommand(context.Background(), r, codex, env))
}

func codexCommand(ctx context.Context, r *repo, codex string, env []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, codex, "exec", "--skip-git-repo-check", "-s", "workspace-write", "change f.txt")
	cmd.Dir, cmd.Env = r.dir, env
	return cmd
}

// TestCodexRealHooksTrust drives the real Codex CLI through a mock model:
// after `install codex`, Codex skips the hooks until the project and each
// hook are trusted, and install and doctor say so; once trusted (here by
// `install codex --trust`, through Codex's own app server), Codex's
// apply_patch of a file another owner holds is denied and the file is
// unchanged.
func TestCodexRealHooksTrust(t *testing.T) {
	codex := codexProgram(t)
	r := newRepo(t, map[string]string{"f.txt": "old\n"})
	m := newResponsesMock(t)
	env := codexEnv(t, r, codex, m)
	lg := lgFunc(t, r.dir, env)

	out, code := lg("install", "codex")
	if code != 0 || !strings.Contains(out, "NOT ACTIVE YET") || !strings.Contains(out, "does not trust the project") {
		t.Fatalf("install codex: exit %d, want a word on the untrusted project:\n%s", code, out)
	}
	out, code = lg("doctor")
	if code != 1 || !strings.Contains(out, "codex: NOT GATING") || !strings.Contains(out, "does not trust the project") {
		t.Fatalf("doctor before trust: exit %d, want exit 1 naming the untrusted project:\n%s", code, out)
	}
	r.mustLG("acquire", "f.txt", "--as", "alice")

	// Untrusted, Codex writes the held file: the hooks never ran.
	runCodex(t, r, codex, env)
	if got := r.read("f.txt"); got != "new\n" {
		t.Fatalf("untrusted hooks: f.txt = %q; Codex was expected to skip the hooks and write it", got)
	}
	r.write("f.txt", "old\n")

	out, code = lg("install", "codex", "--trust")
	if code != 0 || !strings.Contains(out, "trusted the project") || !strings.Contains(out, "trusts the project and all 5 hooks: they run") {
		t.Fatalf("install codex --trust: exit %d:\n%s", code, out)
	}
	out, code = lg("doctor")
	if code != 0 || !strings.Contains(out, "codex: ok") {
		t.Fatalf("doctor after trust: exit %d, want codex ok:\n%s", code, out)
	}
	// Without the codex program, doctor reads the trust Codex recorded.
	out, code = lg("doctor", "--codex", filepath.Join(t.TempDir(), "no-codex"))
	if code != 0 || !strings.Contains(out, "codex: ok") || !strings.Contains(out, "hashes are not checked") {
		t.Fatalf("doctor without codex after trust: exit %d, want codex ok from config.toml:\n%s", code, out)
	}

	log := runCodex(t, r, codex, env)
	if got := r.read("f.txt"); got != "old\n" {
		t.Fatalf("trusted hooks: f.txt = %q, want it unchanged (held by alice)\ncodex:\n%s", got, log)
	}
	outs := m.toolOutputs()
	if len(outs) == 0 || !strings.Contains(outs[len(outs)-1], "alice") {
		t.Fatalf("Codex did not tell the model who holds f.txt; tool outputs: %q\ncodex:\n%s", outs, log)
	}
}
