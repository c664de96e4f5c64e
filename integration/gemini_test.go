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
	"slices"
	"strings"
	"testing"
	"time"
)

// geminiProgram is the real Gemini CLI: the path in LEASEGATE_TEST_GEMINI
// (which .ci/run sets after installing the pinned npm package), else
// gemini on PATH.
func geminiProgram(t *testing.T) string {
	return realProgram(t, "LEASEGATE_TEST_GEMINI", "gemini", "Gemini CLI")
}

// geminiModel is the model the runs ask for by name: with none, Gemini
// CLI first asks a routing model to classify the prompt.
const geminiModel = "gemini-2.5-flash"

// generateMock is a loopback stand-in for the Gemini API: a streamed
// generateContent request that carries n function responses is answered
// with the script's call n, when the request offers its tool; anything
// else with a short text. It keeps the tools offered and the function
// responses Gemini CLI sends back, and calls onResult, if set, before it
// answers a request that brings a new response (while the session lives),
// and onCall before it answers with a call.
type generateMock struct {
	srv *httptest.Server
	modelScript
	onResult func() // set and called with mu held
	onCall   func() // set and called with mu held
}

func newGenerateMock(t *testing.T, script ...toolCall) *generateMock {
	m := &generateMock{modelScript: modelScript{script: script}}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

// generateRequest is what the mock reads of a request.
type generateRequest struct {
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	Contents []struct {
		Parts []struct {
			FunctionResponse *struct {
				Name     string          `json:"name"`
				Response json.RawMessage `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
}

func (m *generateMock) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req generateRequest
	_ = json.Unmarshal(body, &req)
	part := `{"text":"done"}`
	if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		call, fresh, ok := m.note(req)
		m.mu.Lock()
		if fresh && m.onResult != nil {
			m.onResult()
		}
		if ok && m.onCall != nil {
			m.onCall()
		}
		m.mu.Unlock()
		if ok {
			part = fmt.Sprintf(`{"functionCall":{"name":%q,"args":%s}}`, call.tool, call.input)
		}
	}
	answer := `{"candidates":[{"content":{"role":"model","parts":[` + part + `]},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`
	if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\r\n\r\n", answer)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, answer)
}

// note records a request's tools and function responses, and returns the
// call of the script that comes next, whether the request brought a
// response not seen before, and whether the request offers the call's
// tool.
func (m *generateMock) note(req generateRequest) (toolCall, bool, bool) {
	var names, results []string
	for _, tl := range req.Tools {
		for _, fd := range tl.FunctionDeclarations {
			names = append(names, fd.Name)
		}
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				results = append(results, string(p.FunctionResponse.Response))
			}
		}
	}
	call, _, fresh, ok := m.next(names, results)
	return call, fresh, ok
}

// geminiRun is a Gemini CLI in the repo with its own home, its model the
// mock, signed in with an API key.
type geminiRun struct {
	program string
	r       *repo
	env     []string
}

func newGeminiRun(t *testing.T, r *repo, m *generateMock) *geminiRun {
	t.Helper()
	home := t.TempDir()
	user := `{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},` +
		`"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false}}`
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	return &geminiRun{program: geminiProgram(t), r: r, env: append(append([]string(nil), r.env...), "HOME="+home,
		"GEMINI_API_KEY=test-key", "GOOGLE_GEMINI_BASE_URL="+m.srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true")}
}

// install runs `leasegate install gemini` for the run's user.
func (g *geminiRun) install(t *testing.T) string {
	t.Helper()
	out, code := lgIn(t, g.r.dir, g.env, "install", "gemini")
	if code != 0 {
		t.Fatalf("install gemini: exit %d\n%s", code, out)
	}
	return out
}

// geminiResult is what `gemini -p --output-format json` prints last.
type geminiResult struct {
	SessionID string `json:"session_id"`
	Response  string `json:"response"`
}

// run runs `gemini -p prompt` with every tool call approved, and more
// arguments, and returns its result and output.
func (g *geminiRun) run(t *testing.T, prompt string, args ...string) (geminiResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := g.command(ctx, prompt, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	log := stdout.String() + stderr.String()
	if err != nil {
		t.Fatalf("gemini -p: %v\n%s", err, log)
	}
	var res geminiResult
	if i := strings.Index(stdout.String(), "{"); i < 0 || json.Unmarshal(stdout.Bytes()[i:], &res) != nil {
		t.Fatalf("gemini -p printed no JSON result:\n%s", log)
	}
	return res, log
}

// start starts `gemini -p prompt` with every tool call approved in the
// background.
func (g *geminiRun) start(t *testing.T, prompt string) *worker {
	t.Helper()
	return startProcess(t, g.command(context.Background(), prompt))
}

func (g *geminiRun) command(ctx context.Context, prompt string, args ...string) *exec.Cmd {
	args = append([]string{"-m", geminiModel, "-p", prompt, "--approval-mode", "yolo", "--output-format", "json"}, args...)
	cmd := exec.CommandContext(ctx, g.program, args...)
	cmd.Dir, cmd.Env = g.r.dir, g.env
	return cmd
}

// TestGeminiHooksWrite drives the real Gemini CLI through a mock model:
// after `install gemini` (BeforeTool timeout in milliseconds, above the
// 180 s retry), its write_file of a free file takes the lease for the
// session's owner, gemini-<session>, and the session's end releases it.
func TestGeminiHooksWrite(t *testing.T) {
	r := newRepo(t, nil)
	m := newGenerateMock(t, toolCall{"write_file", fmt.Sprintf(`{"file_path":%q,"content":"new\n"}`, filepath.Join(r.dir, "free.txt"))})
	g := newGeminiRun(t, r, m)
	g.install(t)
	checkGeminiTimeouts(t, r)
	var during map[string]string // written and read under m.mu
	m.mu.Lock()
	m.onResult = func() { during = r.holders() }
	m.mu.Unlock()
	res, log := g.run(t, "write free.txt")
	m.mu.Lock()
	defer m.mu.Unlock()
	if got := r.read("free.txt"); got != "new\n" {
		t.Fatalf("free.txt = %q, want Gemini CLI's write\n%s", got, log)
	}
	if want := "gemini-" + res.SessionID; during["free.txt"] != want {
		t.Errorf("free.txt held by %q while the session ran, want %q\n%s", during["free.txt"], want, log)
	}
	checkLeaseEnded(t, r, "free.txt")
	// AfterAgent stopped the owner and SessionEnd ended it.
	var stopped, gone bool
	for _, e := range r.history("") {
		stopped = stopped || e.Type == "owner.stopped" && e.Actor == "gemini-"+res.SessionID && e.Reason == "gemini AfterAgent"
		gone = gone || e.Type == "owner.gone" && e.Actor == "gemini-"+res.SessionID && e.Reason == "gemini session ended"
	}
	if !stopped || !gone {
		t.Errorf("owner gemini-%s stopped %v, gone %v: want both, from AfterAgent and SessionEnd; history %v", res.SessionID, stopped, gone, r.history(""))
	}
}

// TestGeminiHooksDenyHeld: the real Gemini CLI's write_file of a file
// another owner holds waits for the one retry and is refused with the
// session halted (continue:false): the file is unchanged, a blocker names
// the holder, the model is not asked again and the user is told how to
// resolve it. When the session is resumed, the model's next request
// carries the refused call's result, which names the holder and says not
// to write the file by other means.
func TestGeminiHooksDenyHeld(t *testing.T) {
	r := newRepo(t, map[string]string{"held.txt": "old\n"})
	registerSleeper(t, r, "bob")
	r.mustLG("acquire", "--as", "bob", "held.txt")
	m := newGenerateMock(t, toolCall{"write_file", fmt.Sprintf(`{"file_path":%q,"content":"new\n"}`, filepath.Join(r.dir, "held.txt"))})
	g := newGeminiRun(t, r, m)
	g.install(t)
	_, log := g.run(t, "write held.txt")
	if got := r.read("held.txt"); got != "old\n" {
		t.Fatalf("held.txt = %q, want it unchanged\n%s", got, log)
	}
	b := blockedBy(t, r, "bob")
	if tools, results := m.seen(); len(tools) != 1 || len(results) != 0 {
		t.Errorf("the model was asked %d times (results %q): the session was not halted\n%s", len(tools), results, log)
	}
	if !strings.Contains(log, "leasegate resolve "+b.ID) {
		t.Errorf("Gemini CLI did not show the user how to resolve blocker %s:\n%s", b.ID, log)
	}

	// The blocker of a session that ended is closed by liveness; the
	// resumed session's prompt then goes through.
	eventually(t, 10*time.Second, "the ended session's blocker to close", func() bool { return len(r.openBlockers()) == 0 })
	_, log = g.run(t, "go on", "--resume", "latest")
	_, results := m.seen()
	if len(results) != 1 {
		t.Fatalf("the resumed session sent the model %d tool results, want the refused write's\n%s", len(results), log)
	}
	for _, want := range []string{"held.txt is leased by bob", "Do not write held.txt by any other means"} {
		if !strings.Contains(results[0], want) {
			t.Errorf("the refused write's result lacks %q: %s", want, results[0])
		}
	}
	if got := r.read("held.txt"); got != "old\n" {
		t.Errorf("held.txt = %q after the resumed session, want it unchanged", got)
	}
}

// checkGeminiTimeouts checks that every hook install wrote for Gemini CLI
// waits longer than the 180 s retry: Gemini counts in milliseconds and
// kills a hook after 60000 by default, and a hook it kills allows the
// call.
func checkGeminiTimeouts(t *testing.T, r *repo) {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string  `json:"command"`
				Timeout float64 `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	mustJSON(t, r.read(".gemini/settings.json"), &doc)
	n := 0
	for event, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if n++; h.Timeout <= 180000 {
					t.Errorf("%s hook %q: timeout %v ms, want above the 180 s retry", event, h.Command, h.Timeout)
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("no hooks in .gemini/settings.json:\n%s", r.read(".gemini/settings.json"))
	}
}

// TestGeminiMCPCheck drives the real Gemini CLI through a mock model:
// after `install gemini`, Gemini CLI starts `leasegate mcp` from
// .gemini/settings.json and offers its tools to the model, and a
// leases_check call on a file another owner holds returns the holder,
// alive, for the session the installed hooks registered.
func TestGeminiMCPCheck(t *testing.T) {
	r := newRepo(t, map[string]string{"b.go": "package b\n"})
	registerSleeper(t, r, "bob")
	r.mustLG("acquire", "--as", "bob", "b.go")
	m := newGenerateMock(t, toolCall{"mcp_leasegate_leases_check", `{"paths":["b.go"]}`})
	g := newGeminiRun(t, r, m)
	g.install(t)
	res, log := g.run(t, "is b.go free?")
	tools, results := m.seen()
	if len(tools) == 0 || len(results) != 1 {
		t.Fatalf("tools offered %v; tool results %q\n%s", tools, results, log)
	}
	var offered []string
	for _, name := range tools[0] {
		if tool, ok := strings.CutPrefix(name, "mcp_leasegate_"); ok {
			offered = append(offered, tool)
		}
	}
	slices.Sort(offered)
	if want := "blocker_show blockers_list history lease_acquire lease_checkin lease_release lease_renew leases_check leases_status"; strings.Join(offered, " ") != want {
		t.Errorf("leasegate tools offered to the model: %v, want %s", offered, want)
	}
	// Gemini CLI hands the model the tool's text content.
	for _, want := range []string{"acting as gemini-" + res.SessionID, "b.go: held by other", "by bob", "holder alive"} {
		if !strings.Contains(results[0], want) {
			t.Errorf("leases_check result lacks %q:\n%s", want, results[0])
		}
	}
}

// TestGeminiFolderTrust: Gemini CLI loads a project's .gemini/settings.json,
// and so runs the installed hooks, only in a folder it trusts. Before the
// folder is trusted, install and doctor say so (doctor exit 1) and
// `gemini -p` refuses to start; once trustedFolders.json trusts it (as
// Gemini CLI's own trust dialog records), doctor finds the hooks
// installed and answering and the MCP server answering, and the real
// CLI's write goes through the hooks.
func TestGeminiFolderTrust(t *testing.T) {
	r := newRepo(t, nil)
	m := newGenerateMock(t, toolCall{"write_file", fmt.Sprintf(`{"file_path":%q,"content":"new\n"}`, filepath.Join(r.dir, "free.txt"))})
	g := newGeminiRun(t, r, m)
	g.env = slices.DeleteFunc(g.env, func(kv string) bool { return strings.HasPrefix(kv, "GEMINI_CLI_TRUST_WORKSPACE=") })
	if out := g.install(t); !strings.Contains(out, "NOT ACTIVE YET") || !strings.Contains(out, "has not been told to trust "+r.dir) {
		t.Fatalf("install gemini in an untrusted folder: want a word on the trust it lacks:\n%s", out)
	}
	out, code := lgIn(t, r.dir, g.env, "doctor")
	if code != 1 || !strings.Contains(out, "gemini: NOT GATING") || !strings.Contains(out, "Gemini CLI ignores .gemini/settings.json in a folder it does not trust") ||
		!strings.Contains(out, "gemini: mcp: NOT WORKING") {
		t.Fatalf("doctor before trust: exit %d, want exit 1 naming the untrusted folder:\n%s", code, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.program, "-m", geminiModel, "-p", "write free.txt", "--approval-mode", "yolo")
	cmd.Dir, cmd.Env = r.dir, g.env
	if log, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(log), "not running in a trusted directory") {
		t.Fatalf("gemini -p in an untrusted folder: %v, want it refused\n%s", err, log)
	}

	trusted := fmt.Sprintf(`{%q: "TRUST_FOLDER"}`, r.dir)
	if err := os.WriteFile(filepath.Join(envValue(g.env, "HOME"), ".gemini", "trustedFolders.json"), []byte(trusted), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code = lgIn(t, r.dir, g.env, "doctor")
	if code != 0 || !strings.Contains(out, "gemini: ok: 6 hooks") || !strings.Contains(out, "the installed command answers") || !strings.Contains(out, "gemini: mcp: ok") {
		t.Fatalf("doctor after trust: exit %d, want gemini's hooks and MCP server ok:\n%s", code, out)
	}
	res, log := g.run(t, "write free.txt")
	if got := r.read("free.txt"); got != "new\n" {
		t.Fatalf("free.txt = %q, want Gemini CLI's write\n%s", got, log)
	}
	evs := r.history("free.txt")
	if len(evs) == 0 || evs[0].Type != "lease.granted" || evs[0].Actor != "gemini-"+res.SessionID {
		t.Errorf("free.txt history = %v, want the lease granted to gemini-%s through the hooks", evs, res.SessionID)
	}
}

// TestGeminiHooksReplaceAndShell: the real Gemini CLI's replace of a free
// file takes the lease for the session like write_file, and a
// run_shell_command that writes a file another owner holds (which no
// hook can gate) is told to the model with the tool's result, naming the
// holder, and reported as an ungated write.
func TestGeminiHooksReplaceAndShell(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "old\n", "held.txt": "old\n"})
	registerSleeper(t, r, "bob")
	r.mustLG("acquire", "--as", "bob", "held.txt")
	m := newGenerateMock(t,
		toolCall{"replace", fmt.Sprintf(`{"file_path":%q,"old_string":"old","new_string":"new","instruction":"change it"}`, filepath.Join(r.dir, "a.txt"))},
		toolCall{"run_shell_command", `{"command":"echo more >> held.txt","description":"append"}`})
	g := newGeminiRun(t, r, m)
	g.install(t)
	res, log := g.run(t, "change a.txt, then append to held.txt")
	_, results := m.seen()
	if len(results) != 2 {
		t.Fatalf("tool results %q, want replace's and the shell's\n%s", results, log)
	}
	if got := r.read("a.txt"); got != "new\n" {
		t.Errorf("a.txt = %q, want Gemini CLI's replace\n%s", got, log)
	}
	if evs := r.history("a.txt"); len(evs) == 0 || evs[0].Type != "lease.granted" || evs[0].Actor != "gemini-"+res.SessionID {
		t.Errorf("a.txt history = %v, want the lease granted to gemini-%s", evs, res.SessionID)
	}
	// Gemini CLI appends the AfterTool hook's additionalContext to the
	// result.
	for _, want := range []string{"<hook_context>leasegate: the shell command changed files that other owners hold", "held.txt (leased by bob)"} {
		if !strings.Contains(results[1], want) {
			t.Errorf("the shell command's result lacks %q: %s", want, results[1])
		}
	}
	if u, ok := r.ungatedWrites()["held.txt"]; !ok || !heldBy(u, "bob") {
		t.Errorf("held.txt not reported as an ungated write into bob's lease: %+v", r.ungatedWrites())
	}
}

// TestGeminiUnderRunStrippedEnv: in GitHub Actions (GITHUB_SHA set)
// Gemini CLI hands its hooks none of leasegate's variables; under
// `leasegate run --as carol` the hooks still act as carol, from the
// variables of Gemini CLI's own process, so the write is granted to carol
// at once and no session of the hooks' own takes a lease that the
// worker's write then waits on (as it did for the 180 s retry).
func TestGeminiUnderRunStrippedEnv(t *testing.T) {
	r := newRepo(t, nil)
	m := newGenerateMock(t, toolCall{"write_file", fmt.Sprintf(`{"file_path":%q,"content":"new\n"}`, filepath.Join(r.dir, "g.txt"))})
	g := newGeminiRun(t, r, m)
	g.install(t)
	r.mustLG("status") // the coordinator is up before the worker
	env := append(slices.Clone(g.env[len(r.env):]), "GITHUB_SHA=0123abc", "LEASEGATE_RETRY_AFTER=1m")
	w := r.startEnv(env, "run", "--as", "carol", "--", g.program, "-m", geminiModel, "-p", "write g.txt", "--approval-mode", "yolo")
	if code := w.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("run gemini: exit %d\n%s", code, w.out)
	}
	if got := r.read("g.txt"); got != "new\n" {
		t.Fatalf("g.txt = %q, want Gemini CLI's write\n%s", got, w.out)
	}
	for _, e := range r.history("") {
		if strings.HasPrefix(e.Actor, "gemini-") {
			t.Errorf("the hooks acted as a session of their own under run: %v\n%s", e, w.out)
		}
	}
	if strings.Contains(w.out.String(), "refused") {
		t.Errorf("the hooks touched the state directory under run:\n%s", w.out)
	}
}

// TestGeminiHookTimeoutUnit: Gemini CLI counts a hook's timeout in
// milliseconds and lets the tool run when it kills a hook. With the
// timeout written as seconds (240), the real CLI kills the BeforeTool
// hook while the write of a held file waits for its retry, and the write
// goes through; doctor says so, and `install gemini` again puts back the
// 240000 that gates.
func TestGeminiHookTimeoutUnit(t *testing.T) {
	r := newRepo(t, map[string]string{"held.txt": "old\n"})
	registerSleeper(t, r, "bob")
	r.mustLG("acquire", "--as", "bob", "held.txt")
	m := newGenerateMock(t, toolCall{"write_file", fmt.Sprintf(`{"file_path":%q,"content":"new\n"}`, filepath.Join(r.dir, "held.txt"))})
	g := newGeminiRun(t, r, m)
	g.install(t)
	r.write(".gemini/settings.json", strings.ReplaceAll(r.read(".gemini/settings.json"), `"timeout": 240000`, `"timeout": 240`))
	out, code := lgIn(t, r.dir, g.env, "doctor")
	if code != 1 || !strings.Contains(out, "2 of leasegate's BeforeTool hooks may run only 240ms") {
		t.Fatalf("doctor with timeouts in seconds: exit %d, want 1 naming the short timeout:\n%s", code, out)
	}
	_, log := g.run(t, "write held.txt")
	if got := r.read("held.txt"); got != "new\n" {
		t.Fatalf("held.txt = %q: Gemini CLI did not kill the hook after 240 ms and let the write through\n%s", got, log)
	}
	g.install(t)
	if out, code := lgIn(t, r.dir, g.env, "doctor"); code != 0 || !strings.Contains(out, "gemini: ok") {
		t.Fatalf("doctor after install again: exit %d, want gemini ok:\n%s", code, out)
	}
	checkGeminiTimeouts(t, r)
}
