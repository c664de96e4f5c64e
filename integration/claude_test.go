package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasegate/leasegate/blocker"
)

// claudeProgram is the real Claude Code CLI: the path in
// LEASEGATE_TEST_CLAUDE (which .ci/run sets after installing the pinned
// npm package), else claude on PATH.
func claudeProgram(t *testing.T) string {
	return realProgram(t, "LEASEGATE_TEST_CLAUDE", "claude", "Claude Code")
}

// messagesMock is a loopback stand-in for Anthropic's Messages API: a
// streamed request that carries n tool results is answered with the
// script's call n, when the request offers its tool; anything else with a
// short text. It keeps the tool results Claude Code sends back.
type messagesMock struct {
	srv *httptest.Server
	modelScript
	hold *turnHold // set before the agent starts
}

// toolCall is a tool call the mock model makes.
type toolCall struct {
	tool  string
	input string // JSON
}

// modelScript is what a scripted mock model keeps, whatever the API it
// speaks: the calls to make in turn, each once the previous one's result
// is back, and what the agent sent, the tool names each request offered
// and the tool results.
type modelScript struct {
	script  []toolCall
	mu      sync.Mutex
	tools   [][]string
	results []string
}

// next records a request that offered names and carried results (all of
// the conversation's, in order), and returns the call of the script that
// comes next and its index, whether the request brought a result not seen
// before, and whether it offers the call's tool.
func (s *modelScript) next(names, results []string) (call toolCall, n int, fresh, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = append(s.tools, names)
	n = len(results)
	if fresh = n > len(s.results); fresh {
		s.results = append(s.results, results[len(s.results):]...)
	}
	if n >= len(s.script) || !slices.Contains(names, s.script[n].tool) {
		return toolCall{}, n, fresh, false
	}
	return s.script[n], n, fresh, true
}

func (s *modelScript) seen() (tools [][]string, results []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.tools...), append([]string(nil), s.results...)
}

// newMessagesMock is a mock model that calls tool with input once.
func newMessagesMock(t *testing.T, tool, input string) *messagesMock {
	return newScriptedMock(t, toolCall{tool, input})
}

// newScriptedMock is a mock model that makes the calls of script in turn,
// each once the previous one's result is back.
func newScriptedMock(t *testing.T, script ...toolCall) *messagesMock {
	m := &messagesMock{modelScript: modelScript{script: script}}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

// messagesRequest is what the mock reads of a request.
type messagesRequest struct {
	Stream bool `json:"stream"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []struct {
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (m *messagesMock) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.Contains(r.URL.Path, "count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens": 1}`)
		return
	}
	var req messagesRequest
	_ = json.Unmarshal(body, &req)
	call, n, fresh, ok := m.note(req)
	if fresh {
		m.hold.wait(r.Context())
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"msg_0","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	block, delta, stop := `{"type":"text","text":""}`, `{"type":"text_delta","text":"done"}`, "end_turn"
	if ok {
		in, _ := json.Marshal(call.input)
		block = fmt.Sprintf(`{"type":"tool_use","id":"toolu_%02d","name":%q,"input":{}}`, n, call.tool)
		delta, stop = fmt.Sprintf(`{"type":"input_json_delta","partial_json":%s}`, in), "tool_use"
	}
	for _, ev := range [][2]string{
		{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":` + block + `}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":` + delta + `}`},
		{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"` + stop + `","stop_sequence":null},"usage":{"output_tokens":1}}`},
		{"message_stop", `{"type":"message_stop"}`},
	} {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev[0], ev[1])
	}
}

// note records a request's tools and tool results, and returns the call
// of the script that comes next and its index, whether the request brought
// a result not seen before, and whether it offers the call's tool.
func (m *messagesMock) note(req messagesRequest) (toolCall, int, bool, bool) {
	var names, results []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name)
	}
	for _, msg := range req.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(msg.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				results = append(results, string(b.Content))
			}
		}
	}
	return m.next(names, results)
}

// claudeRun is a Claude Code session in the repo, with its own home,
// leasegate installed for it and its model the mock.
type claudeRun struct {
	program string
	r       *repo
	env     []string
}

func newClaudeRun(t *testing.T, r *repo, m *messagesMock) *claudeRun {
	t.Helper()
	home := t.TempDir()
	c := &claudeRun{program: claudeProgram(t), r: r, env: append(append([]string(nil), r.env...), "HOME="+home,
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "ANTHROPIC_BASE_URL="+m.srv.URL, "ANTHROPIC_API_KEY=sk-ant-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
		// Offer MCP tools to the model directly, not behind Claude Code's tool search.
		"ENABLE_TOOL_SEARCH=false")}
	install := exec.Command(bin, "install", "claude-code")
	install.Dir, install.Env = r.dir, c.env
	if out, err := install.CombinedOutput(); err != nil || !strings.Contains(string(out), ".mcp.json") {
		t.Fatalf("install claude-code: %v\n%s", err, out)
	}
	// Nothing else: in -p mode Claude Code starts the project's MCP servers
	// without the approval it asks for in an interactive session.
	return c
}

// run runs `claude -p prompt` allowing tool, and returns its output.
func (c *claudeRun) run(t *testing.T, prompt, tool string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	cmd := c.command(ctx, prompt, tool)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// start starts `claude -p prompt` allowing tool in the background.
func (c *claudeRun) start(t *testing.T, prompt, tool string) *worker {
	t.Helper()
	return startProcess(t, c.command(context.Background(), prompt, tool))
}

func (c *claudeRun) command(ctx context.Context, prompt, tool string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.program, "-p", prompt, "--allowedTools", tool, "--output-format", "json")
	cmd.Dir, cmd.Env = c.r.dir, c.env
	return cmd
}

// TestClaudeCodeMCPCheck drives the real Claude Code through a mock
// model: after `leasegate install claude-code`, Claude Code starts
// `leasegate mcp` from the installed .mcp.json, and a leases_check tool
// call on a file another owner holds returns the holder, alive, to the
// model, for the session the installed hooks registered.
func TestClaudeCodeMCPCheck(t *testing.T) {
	r := newRepo(t, map[string]string{"b.go": "package b\n"})
	registerSleeper(t, r, "bob")
	r.mustLG("acquire", "--as", "bob", "b.go")
	m := newMessagesMock(t, "mcp__leasegate__leases_check", `{"paths":["b.go"]}`)
	out, err := newClaudeRun(t, r, m).run(t, "is b.go free?", "mcp__leasegate__leases_check")
	tools, results := m.seen()
	if err != nil || len(results) == 0 {
		t.Fatalf("claude -p: %v; tools offered %v; tool results %q\n%s", err, tools, results, out)
	}
	// Claude Code hands the model the structured content.
	last := results[len(results)-1]
	for _, want := range []string{`\"state\":\"held_by_other\"`, `\"holder\":\"bob\"`, `\"liveness\":\"alive\"`, `\"me\":\"cc-`} {
		if !strings.Contains(last, want) {
			t.Errorf("leases_check result lacks %s:\n%s", want, last)
		}
	}
	// The installed hooks ran: UserPromptSubmit registered the session
	// (SessionEnd has ended it since), the owner the MCP server acted as.
	if registered := sessionOwner(t, r); registered == "" || !strings.Contains(last, `\"me\":\"`+registered+`\"`) {
		t.Errorf("session registered by the hooks: %q; the MCP server acted as: %s", registered, last)
	}
}

// TestClaudeCodeCheckoutThenWrite drives the real Claude Code through a
// mock model that first checks docs/** out through the MCP server, then
// writes docs/a.md with its Write tool. With the prompt hook left out of
// the installed entries, no hook has registered the session when the
// server acts, so the server registers it; the write, gated by the
// PreToolUse hook of the same agent process, is granted at once: one
// owner holds both, and the watcher does not report the gated write as
// ungated. (Claude Code gives its MCP servers the session id,
// CLAUDE_CODE_SESSION_ID, so both name the session alike; an agent that
// does not is joined by the coordinator, TestMCPCheckoutBeforeHooks.)
func TestClaudeCodeCheckoutThenWrite(t *testing.T) {
	r := newRepo(t, nil)
	target := filepath.Join(r.dir, "docs", "a.md")
	m := newScriptedMock(t, toolCall{"mcp__leasegate__lease_acquire", `{"paths":["docs/**"],"ttl":"1h"}`},
		toolCall{"Write", fmt.Sprintf(`{"file_path":%q,"content":"new\n"}`, target)})
	c := newClaudeRun(t, r, m)
	withoutPromptHook(t, r)
	out, err := c.run(t, "reserve docs, then write docs/a.md", "mcp__leasegate__lease_acquire,Write")
	_, results := m.seen()
	if err != nil || len(results) != 2 {
		t.Fatalf("claude -p: %v; tool results %q\n%s", err, results, out)
	}
	if got := r.read("docs/a.md"); got != "new\n" {
		t.Fatalf("docs/a.md = %q, want Claude Code's write granted to the check-out's owner; results %q\n%s", got, results, out)
	}
	var owners []string
	for _, e := range r.history("") {
		if e.Type == "owner.registered" && !slices.Contains(owners, e.Actor) {
			owners = append(owners, e.Actor)
		}
	}
	var checkout string
	for _, l := range r.status().Leases {
		if l.Kind == "checkout" {
			checkout = l.Owner.Name
		}
	}
	if len(owners) != 1 || checkout != owners[0] || !strings.Contains(results[0], checkout) {
		t.Errorf("owners registered %v, check-out held by %q (acquire answered %s); want one owner for both", owners, checkout, results[0])
	}
	// A write no gate saw, made after Claude Code's, is reported: by then
	// the watcher has judged Claude Code's gated write, which must not be.
	r.write("docs/after.md", "written by no gated process\n")
	eventually(t, 10*time.Second, "the ungated write of docs/after.md", func() bool {
		_, ok := r.ungatedWrites()["docs/after.md"]
		return ok
	})
	for p, u := range r.ungatedWrites() { // install's own files are ungated writes too
		if strings.HasPrefix(p, "docs/") && p != "docs/after.md" {
			t.Errorf("Claude Code's gated write in its own check-out was reported as ungated: %+v", u)
		}
	}
}

// withoutPromptHook takes UserPromptSubmit out of the hook entries
// install wrote for Claude Code.
func withoutPromptHook(t *testing.T, r *repo) {
	t.Helper()
	var doc map[string]any
	mustJSON(t, r.read(".claude/settings.local.json"), &doc)
	hooks, _ := doc["hooks"].(map[string]any)
	if _, ok := hooks["UserPromptSubmit"]; !ok {
		t.Fatalf("no UserPromptSubmit entry in %s", r.read(".claude/settings.local.json"))
	}
	delete(hooks, "UserPromptSubmit")
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	r.write(".claude/settings.local.json", string(data))
}

// sessionOwner is the Claude Code session the hooks registered.
func sessionOwner(t *testing.T, r *repo) string {
	t.Helper()
	evs, err := r.client.History(context.Background(), "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Type == "owner.registered" && strings.HasPrefix(e.Actor, "cc-") {
			return e.Actor
		}
	}
	return ""
}

// TestClaudeCodeHooksWrite: the real Claude Code runs the installed hook
// entries (exec form, 240 s timeout): its Write of a free file is granted
// and the lease goes at SessionEnd.
func TestClaudeCodeHooksWrite(t *testing.T) {
	r := newRepo(t, nil)
	m := newMessagesMock(t, "Write", fmt.Sprintf(`{"file_path":%q,"content":"new\n"}`, filepath.Join(r.dir, "free.txt")))
	out, err := newClaudeRun(t, r, m).run(t, "write free.txt", "Write")
	if err != nil {
		t.Fatalf("claude -p: %v\n%s", err, out)
	}
	if got := r.read("free.txt"); got != "new\n" {
		t.Fatalf("free.txt = %q, want Claude Code's write", got)
	}
	checkLeaseEnded(t, r, "free.txt")
}

// checkLeaseEnded checks that an agent session's write of path took its
// lease and that the session's end released it.
func checkLeaseEnded(t *testing.T, r *repo, path string) {
	t.Helper()
	evs := r.history(path)
	if !hasEvent(evs, "lease.granted") || !hasEvent(evs, "lease.released") {
		t.Errorf("%s history = %v, want granted then released at the session's end", path, evs)
	}
	if h := r.holders(); h[path] != "" {
		t.Errorf("%s still held by %s after the session", path, h[path])
	}
}

// TestClaudeCodeHooksDenyHeld: the real Claude Code's Write of a file
// another owner holds waits for the one retry, is denied with a hard stop
// (continue:false) that ends the session before the model hears back,
// the file unchanged and a blocker opened against the holder. Once Claude
// Code has exited, its session is a gone requester, so the blocker may
// already be closed by liveness as aborted: the one outcome besides open.
func TestClaudeCodeHooksDenyHeld(t *testing.T) {
	r := newRepo(t, map[string]string{"held.txt": "old\n"})
	registerSleeper(t, r, "bob")
	r.mustLG("acquire", "--as", "bob", "held.txt")
	m := newMessagesMock(t, "Write", fmt.Sprintf(`{"file_path":%q,"content":"new\n"}`, filepath.Join(r.dir, "held.txt")))
	out, _ := newClaudeRun(t, r, m).run(t, "write held.txt", "Write")
	if got := r.read("held.txt"); got != "old\n" {
		t.Fatalf("held.txt = %q, want it unchanged\n%s", got, out)
	}
	blockedBy(t, r, "bob")
	if _, results := m.seen(); len(results) != 0 {
		t.Errorf("the model was asked again after the deny (results %q): the session was not stopped\n%s", results, out)
	}
}

// blockedBy returns the one blocker an agent session's halted write
// opened, which must name holder. Once the agent has exited its session is
// a gone requester, so the blocker may already be closed by liveness as
// aborted: the one outcome besides open.
func blockedBy(t *testing.T, r *repo, holder string) blocker.Report {
	t.Helper()
	bs, err := r.client.Blockers(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 || bs[0].Holder.Owner.Name != holder {
		t.Fatalf("blockers = %+v, want one against %s", bs, holder)
	}
	if res := bs[0].Resolution; res != nil && (res.Action != blocker.ActionAbort || res.By != "liveness") {
		t.Errorf("blocker resolved %+v, want open, or aborted by liveness once the agent was gone", *res)
	}
	return bs[0]
}
