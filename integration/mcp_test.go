package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/mcp"
)

// mcpSession starts `leasegate mcp` as a real subprocess over stdio (the
// SDK's command transport) from script, a shell installed as "claude"
// (the agent process the server's identity is found by) that runs
// `leasegate mcp` as its child. extraEnv is added to the repository's.
func mcpSession(t *testing.T, r *repo, script string, extraEnv ...string) *sdk.ClientSession {
	t.Helper()
	dir := t.TempDir()
	agent := filepath.Join(dir, "claude")
	if err := os.Symlink("/bin/sh", agent); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(agent, "-c", script+"; exit 0")
	cmd.Dir, cmd.Stderr = r.dir, os.Stderr
	cmd.Env = append(append(slices.Clone(r.env), "LG="+bin), extraEnv...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "it"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to leasegate mcp: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callTool calls a tool and decodes its structured content into out.
func callTool(t *testing.T, cs *sdk.ClientSession, tool string, args, out any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if out != nil {
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: %s: %v", tool, data, err)
		}
	}
	return res
}

func toolText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// registerSleeper registers name with a sleeping process as its handle.
func registerSleeper(t *testing.T, r *repo, name string) {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	start, err := liveness.ProcessStart(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	// With the host named, the owner is judged by its process on this
	// host; without it, by heartbeats, which a sleeper never sends, so it
	// would be judged dead once the TTL passed (10 s, which a slow agent
	// CLI's start on a loaded machine outlasts).
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.client.Register(context.Background(), leasegate.Registration{Owner: gate.Owner{Name: name, Host: host, PID: cmd.Process.Pid, StartTime: start}}); err != nil {
		t.Fatal(err)
	}
}

// TestMCPOverStdio: a real `leasegate mcp` started by an agent process
// acts for the session the agent's hooks registered, shows a path another
// owner holds (holder, liveness, a waiting write's retry time), and runs
// the lease tools end to end; bad input is refused with its code.
func TestMCPOverStdio(t *testing.T) {
	r := newRepo(t, nil)
	prompt := eventFile(t, map[string]any{"session_id": "s1", "cwd": r.dir, "hook_event_name": "UserPromptSubmit", "prompt": "go"})
	cs := mcpSession(t, r, fmt.Sprintf(`"$LG" hook claude-code < %s && "$LG" mcp`, prompt))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	want := "blocker_show blockers_list history lease_acquire lease_checkin lease_release lease_renew leases_check leases_status"
	if strings.Join(names, " ") != want {
		t.Fatalf("tools = %v, want %s", names, want)
	}

	registerSleeper(t, r, "bob")
	registerSleeper(t, r, "carol")
	r.mustLG("acquire", "--as", "bob", "b.go")
	if res, err := r.client.Mutate(context.Background(), leasegate.MutateRequest{Owner: "carol", Op: "write", Paths: []string{"b.go"}}); err != nil || res.Outcome != leasegate.Contended {
		t.Fatalf("carol's write = %+v, %v; want contended", res, err)
	}
	var got mcp.LeaseOutput
	if res := callTool(t, cs, "lease_acquire", map[string]any{"paths": []string{"a.go"}, "ttl": "1h"}, &got); res.IsError || got.Me != "cc-s1" {
		t.Fatalf("acquire = %s %+v, want a lease for the hooks' owner cc-s1", toolText(res), got)
	}
	var chk mcp.CheckOutput
	res := callTool(t, cs, "leases_check", map[string]any{"paths": []string{"a.go", "b.go", "c.go"}}, &chk)
	if res.IsError || len(chk.Paths) != 3 {
		t.Fatalf("check = %s", toolText(res))
	}
	if chk.Paths[0].State != mcp.HeldByMe || chk.Paths[2].State != mcp.Free {
		t.Errorf("a.go %s, c.go %s; want held by me, free", chk.Paths[0].State, chk.Paths[2].State)
	}
	b := chk.Paths[1]
	if b.State != mcp.HeldByOther || len(b.Holders) != 1 || b.Holders[0].Holder != "bob" || b.Holders[0].Liveness != string(gate.Alive) || len(b.Holders[0].Evidence) == 0 {
		t.Errorf("b.go = %+v, want held by bob, alive with evidence", b)
	}
	if len(b.Contentions) != 1 || b.Contentions[0].Requester != "carol" || b.Contentions[0].RetryAt == "" {
		t.Errorf("b.go contentions = %+v, want carol's with its retry time", b.Contentions)
	}
	if !strings.Contains(toolText(res), "b.go: held by other") || !strings.Contains(toolText(res), "retried at") {
		t.Errorf("check text:\n%s", toolText(res))
	}
	for _, step := range []struct{ tool, lease string }{{"lease_renew", "a.go"}, {"lease_release", "a.go"}} {
		if res := callTool(t, cs, step.tool, map[string]any{"lease": step.lease}, nil); res.IsError {
			t.Errorf("%s = %s", step.tool, toolText(res))
		}
	}
	if h := r.holders(); h["a.go"] != "" {
		t.Errorf("a.go still held by %s after lease_release", h["a.go"])
	}
	var ec mcp.ErrorContent
	if res := callTool(t, cs, "leases_check", map[string]any{"paths": []string{"../x"}, "as": "bob"}, &ec); !res.IsError || ec.Error.Code != gate.ReasonInputInvalid {
		t.Errorf("check with an unknown field = %s", toolText(res))
	}
	if res := callTool(t, cs, "lease_acquire", map[string]any{"paths": []string{"../x"}}, &ec); !res.IsError || ec.Error.Code != gate.ReasonOutsideWorkspace {
		t.Errorf("acquire ../x = %s", toolText(res))
	}
}

// TestMCPCoordinatorDown: with no coordinator and starting none, every
// tool answers COORDINATOR_UNAVAILABLE, never "free".
func TestMCPCoordinatorDown(t *testing.T) {
	r := newCheckout(t, nil)
	cs := mcpSession(t, r, `"$LG" mcp --as alice`, "LEASEGATE_NO_START=1")
	for tool, args := range map[string]map[string]any{
		"leases_check": {"paths": []string{"a.go"}}, "leases_status": {}, "lease_acquire": {"paths": []string{"a.go"}},
		"lease_renew": {"lease": "a.go"}, "lease_release": {"lease": "a.go"}, "lease_checkin": {"lease": "a.go"},
		"blockers_list": {}, "blocker_show": {"id": "01JABCDEFGHJKMNPQRSTVWXYZ0"}, "history": {},
	} {
		var ec mcp.ErrorContent
		res := callTool(t, cs, tool, args, &ec)
		if !res.IsError || ec.Error.Code != api.CodeUnavailable || !strings.Contains(toolText(res), "cannot be reached") {
			t.Errorf("%s = %s, want COORDINATOR_UNAVAILABLE", tool, toolText(res))
		}
	}
}

// TestMCPCheckLatency measures leases_check of 10 paths over stdio beside
// `leasegate status --json` in the same run, and logs p50/p99. The server
// runs as install registers it (`leasegate mcp`, no --as), so each check
// also learns who the caller is. With LEASEGATE_MEASURE_BASELINE set to
// another leasegate binary, that binary's `mcp` is measured too, against
// the same coordinator, in alternating rounds so that both see the same
// load. With LEASEGATE_MEASURE_LEASES=N, another owner holds N more
// check-outs of other files throughout. It asserts nothing about time:
// the machine may be loaded.
func TestMCPCheckLatency(t *testing.T) {
	r := newRepo(t, nil)
	r.mustLG("acquire", "--as", "bob", "p3.go", "p7.go")
	if n, _ := strconv.Atoi(os.Getenv("LEASEGATE_MEASURE_LEASES")); n > 0 {
		loadCheckouts(t, r, n)
	}
	var paths []string
	for i := range 10 {
		paths = append(paths, fmt.Sprintf("p%d.go", i))
	}
	bins := []string{bin}
	if base := os.Getenv("LEASEGATE_MEASURE_BASELINE"); base != "" {
		bins = append(bins, base)
	}
	const rounds, perRound = 8, 50
	times := make([][]time.Duration, len(bins))
	sessions := make([]*sdk.ClientSession, len(bins))
	for i, b := range bins {
		sessions[i] = mcpSession(t, r, `"$LG" mcp`, "LG="+b)
		checkLatency(t, sessions[i], paths, 5) // warm: the first call connects
	}
	for range rounds {
		for i, cs := range sessions {
			times[i] = append(times[i], checkLatency(t, cs, paths, perRound)...)
		}
	}
	cliTimes := make([]time.Duration, 0, 20)
	for range 20 {
		start := time.Now()
		r.mustLG("status", "--json")
		cliTimes = append(cliTimes, time.Since(start))
	}
	for i, b := range bins {
		p50, p99 := percentiles(times[i])
		t.Logf("leases_check of 10 paths over stdio (%s): p50 %s p99 %s (n=%d)", b, p50, p99, len(times[i]))
	}
	c50, c99 := percentiles(cliTimes)
	t.Logf("leasegate status --json: p50 %s p99 %s (n=%d)", c50, c99, len(cliTimes))
}

// loadCheckouts has carol, an owner with a process of its own, check out
// n files under load/, from a few clients at once.
func loadCheckouts(t *testing.T, r *repo, n int) {
	t.Helper()
	registerSleeper(t, r, "carol")
	const clients = 8
	errs := make(chan error, clients)
	for c := range clients {
		go func() {
			var err error
			for i := c; i < n && err == nil; i += clients {
				_, err = r.client.Lease(context.Background(), leasegate.LeaseRequest{Op: gate.OpAcquire, Owner: gate.Owner{Name: "carol"},
					Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{fmt.Sprintf("load/%d.go", i)}}})
			}
			errs <- err
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Fatalf("carol's check-outs: %v", err)
		}
	}
}

// checkLatency times n calls of leases_check of paths.
func checkLatency(t *testing.T, cs *sdk.ClientSession, paths []string, n int) []time.Duration {
	t.Helper()
	out := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if res := callTool(t, cs, "leases_check", map[string]any{"paths": paths}, nil); res.IsError {
			t.Fatal(toolText(res))
		}
		out = append(out, time.Since(start))
	}
	return out
}

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(ds)
	return ds[len(ds)/2], ds[min(len(ds)-1, len(ds)*99/100)]
}

// TestMCPInstall: `install AGENT` registers the MCP server in the agent's
// MCP file beside the user's own servers, and `uninstall` gives the file
// back byte for byte; --no-mcp leaves it alone, and is refused for git.
func TestMCPInstall(t *testing.T) {
	r := newCheckout(t, nil)
	r.env = append(r.env, "XDG_STATE_HOME="+t.TempDir(), "HOME="+t.TempDir())
	orig := "{\n  \"mcpServers\": {\"github\": {\"command\": \"gh-mcp\"}}\n}\n"
	r.write(".mcp.json", orig)
	r.mustLG("install", "claude-code")
	var doc struct {
		Servers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	mustJSON(t, r.read(".mcp.json"), &doc)
	if s := doc.Servers["leasegate"]; s.Command != bin || !slices.Equal(s.Args, []string{"mcp"}) || doc.Servers["github"].Command != "gh-mcp" {
		t.Errorf(".mcp.json after install = %s", r.read(".mcp.json"))
	}
	r.mustLG("uninstall", "claude-code")
	if got := r.read(".mcp.json"); got != orig {
		t.Errorf(".mcp.json after uninstall = %q, want %q", got, orig)
	}
	r.mustLG("install", "gemini", "--no-mcp")
	if strings.Contains(r.read(".gemini/settings.json"), "mcpServers") {
		t.Errorf("install --no-mcp registered the server: %s", r.read(".gemini/settings.json"))
	}
	if _, stderr, code := r.lg("install", "git", "--no-mcp"); code != 2 {
		t.Errorf("install git --no-mcp = exit %d (%s), want 2", code, stderr)
	}
}
