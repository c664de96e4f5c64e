package hooks_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/hooks"
)

// wantBlocked is the exact output of a Claude Code write denied after its
// retry, for the blocker report rep. A commit does not end a check-out, so
// for a file a check-out holds the operator is told to retry once its
// holder releases or checks it in.
func wantBlocked(rep blocker.Report) result {
	reason := fmt.Sprintf("leasegate: %s is leased by %s (lease %s, held for %s). The write was retried once after %s and the file is still held, so blocker %s is open and this session is halted. Do not write %s by any other means (shell redirection, sed, mv, git checkout). Stop and tell the user that an operator must resolve blocker %s.",
		rep.Path, rep.Holder.Owner.Name, rep.Holder.LeaseID, rep.Holder.HeldFor.Round(time.Second), rep.RetryInterval, rep.ID, rep.Path, rep.ID)
	letsGo := "commits or releases the file"
	if rep.Holder.Kind == gate.KindCheckout {
		letsGo = "releases or checks in its check-out (a commit does not end it)"
	}
	stop := fmt.Sprintf("leasegate: blocker %s: %s is leased by %s, so this session is halted. Resolve it with `leasegate resolve %s --retry` (after %s %s), `--deny` (refuse the write; the session goes on) or `--abort`; details: `leasegate blockers %s`.",
		rep.ID, rep.Path, rep.Holder.Owner.Name, rep.ID, rep.Holder.Owner.Name, letsGo, rep.ID)
	out, _ := json.Marshal(map[string]any{
		"hookSpecificOutput": map[string]string{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason},
		"continue":           false, "stopReason": stop,
	})
	return result{stdout: string(out) + "\n", stderr: reason + "\n", code: 2}
}

// sameOutput compares a hook's output with want, the stdout as JSON (key
// order aside) and the rest exactly.
func sameOutput(t *testing.T, what string, got, want result) {
	t.Helper()
	if got.code != want.code || got.stderr != want.stderr || !sameJSONText(got.stdout, want.stdout) {
		t.Errorf("%s =\nexit %d\nstdout %s\nstderr %s\nwant\nexit %d\nstdout %s\nstderr %s",
			what, got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
	}
}

func sameJSONText(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys) && strings.HasSuffix(a, "}\n")
}

var allow = result{}

// contextResult is an allowed call that tells the model (and the user) msg.
func contextResult(event, msg string) result {
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": msg}, "systemMessage": msg})
	return result{stdout: string(out) + "\n"}
}

func TestHookGrantIsSilent(t *testing.T) {
	r := newRepo(t)
	r.write("src/.keep", "")
	r.serve()
	got := r.hook(hooks.ClaudeCode, "pretooluse-write.json", "A")
	sameOutput(t, "hook on a free file", got, allow)
	h := r.holders()
	if h["src/app.go"] != "cc-A" || h["src/app_test.go"] != "cc-A" {
		t.Errorf("holders after the grant = %v, want cc-A on src/app.go and its pair src/app_test.go", h)
	}
	sameOutput(t, "hook again on the file it holds", r.hook(hooks.ClaudeCode, "pretooluse-edit.json", "A"), allow)

	// From a subdirectory, through "..": the file is docs/guide.md.
	sameOutput(t, "hook from src/ on src/../docs/guide.md", r.hook(hooks.ClaudeCode, "pretooluse-multiedit.json", "A"), allow)
	if h := r.holders(); h["docs/guide.md"] != "cc-A" {
		t.Errorf("holders = %v, want cc-A on docs/guide.md", h)
	}
}

func TestHookDeniesAfterTheOneRetry(t *testing.T) {
	r := newRepo(t)
	r.serve()
	r.mustLeasegate("acquire", "--as", "bob", "src/app.go")

	start := time.Now()
	got := r.hook(hooks.ClaudeCode, "pretooluse-write.json", "A")
	waited := time.Since(start)
	reps := r.blockers()
	if len(reps) != 1 {
		t.Fatalf("blockers after the denial = %+v, want one", reps)
	}
	rep := reps[0]
	if rep.Path != "src/app.go" || rep.Requester.Name != "cc-A" || rep.Holder.Owner.Name != "bob" || rep.RetryInterval != time.Second {
		t.Errorf("blocker = %+v, want cc-A blocked on src/app.go held by bob after a 1s retry", rep)
	}
	sameOutput(t, "hook on a file bob holds", got, wantBlocked(rep))
	if waited < time.Second {
		t.Errorf("the hook answered after %s, want at least the 1s retry", waited)
	}

	// Asking again answers with the open blocker at once: a second wait
	// would have opened a second blocker.
	sameOutput(t, "hook again while the blocker is open", r.hook(hooks.ClaudeCode, "pretooluse-write.json", "A"), wantBlocked(rep))
	if n := len(r.blockers()); n != 1 {
		t.Errorf("asking again opened more blockers: %d open, want 1", n)
	}

	refusal := fmt.Sprintf("leasegate: this session is halted by 1 open blocker(s), so this prompt is refused: blocker %s (src/app.go is leased by bob); resolve with `leasegate resolve ID --retry|--deny|--abort` (`leasegate blockers` shows them), then go on.", rep.ID)
	sameOutput(t, "prompt while halted", r.hook(hooks.ClaudeCode, "userpromptsubmit.json", "A"),
		result{stdout: fmt.Sprintf(`{"decision":"block","reason":%q}`, refusal) + "\n", stderr: refusal + "\n", code: 2})

	r.mustLeasegate("resolve", rep.ID, "--deny", "--note", "leave app.go to bob")
	told := fmt.Sprintf(`leasegate: an operator resolved blocker %s on src/app.go: deny (the write was refused; go on without it). The operator's note: "leave app.go to bob"`, rep.ID)
	sameOutput(t, "prompt after the operator denied the write", r.hook(hooks.ClaudeCode, "userpromptsubmit.json", "A"), contextResult("UserPromptSubmit", told))
	sameOutput(t, "another file after the operator denied the write", r.hook(hooks.ClaudeCode, "pretooluse-notebookedit.json", "A"), allow)
}

func TestHookFailsClosedWithoutCoordinator(t *testing.T) {
	r := newRepo(t)
	sock := r.root + "/.git/leasegate/coord.sock"
	reason := fmt.Sprintf("leasegate: the lease coordinator of %s cannot be reached (coordinator unavailable: no coordinator answers at %s), so the write to src/app.go is refused: writes fail closed while it is down. Do not write the file by other means; tell the user.", r.root, sock)
	stop := fmt.Sprintf("leasegate: the coordinator of %s cannot be reached: coordinator unavailable: no coordinator answers at %s. Check it with `leasegate status --workspace %s`; agent writes are refused until it answers.", r.root, sock, r.root)
	tests := []struct {
		agent   hooks.Agent
		fixture string
		stdout  map[string]any
	}{
		{hooks.ClaudeCode, "pretooluse-write.json", map[string]any{
			"hookSpecificOutput": map[string]string{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason},
			"continue":           false, "stopReason": stop}},
		{hooks.Codex, "pretooluse-apply-patch.json", nil},
		{hooks.Gemini, "beforetool-write-file.json", map[string]any{"decision": "deny", "reason": reason, "continue": false, "systemMessage": stop}},
		{hooks.Cursor, "pretooluse-write.json", map[string]any{"permission": "deny", "user_message": stop, "agent_message": reason}},
	}
	for _, tt := range tests {
		t.Run(string(tt.agent), func(t *testing.T) {
			got := r.hook(tt.agent, tt.fixture, "A")
			if tt.stdout == nil {
				// The patch names five files: check the shape, not the list.
				if got.code != 2 || !strings.Contains(got.stderr, "cannot be reached") || strings.Contains(got.stdout, `"continue"`) ||
					!strings.Contains(got.stdout, `"permissionDecision":"deny"`) {
					t.Errorf("codex hook without coordinator = %+v, want a deny without continue:false, exit 2 and the reason on stderr", got)
				}
				return
			}
			want, _ := json.Marshal(tt.stdout)
			sameOutput(t, string(tt.agent)+" hook without coordinator", got, result{stdout: string(want) + "\n", stderr: reason + "\n", code: 2})
		})
	}
}

func TestHookDeniesMalformedInput(t *testing.T) {
	r := newRepo(t)
	deny := func(reason string) result {
		out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
			"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
		return result{stdout: string(out) + "\n", stderr: reason + "\n", code: 2}
	}
	tests := []struct {
		name, stdin, reason string
	}{
		{"not json", "Write /etc/passwd", "leasegate: malformed claude-code hook input: stdin is not a JSON object: invalid character 'W' looking for beginning of value; the tool call is refused because leasegate cannot tell what it writes"},
		{"no file path", `{"session_id":"A","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"x"}}`,
			"leasegate: malformed claude-code hook input: tool_input.file_path is missing or empty; the tool call is refused because leasegate cannot tell what it writes"},
		{"no session", `{"cwd":"` + r.root + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + r.root + `/a.go"}}`,
			"leasegate: malformed claude-code hook input: session_id is missing, so the session has no owner name (or set LEASEGATE_AS); the tool call is refused because leasegate cannot tell what it writes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameOutput(t, "hook on "+tt.name, r.leasegate(nil, tt.stdin, "hook", "claude-code"), deny(tt.reason))
		})
	}
	t.Run("unknown agent", func(t *testing.T) {
		got := r.leasegate(nil, "{}", "hook", "vim")
		if got.code != 2 || !strings.Contains(got.stderr, `unknown agent "vim"`) || strings.Count(got.stderr, "want one of") != 1 {
			t.Errorf("hook vim = %+v, want exit 2 naming the agent and, once, what it may be", got)
		}
	})
}

func TestHookAllowsWhatIsNotGated(t *testing.T) {
	r := newRepo(t) // no coordinator, and none may start: an allow here asked for none
	write := func(path string) string {
		return `{"session_id":"A","cwd":"` + r.root + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + path + `"}}`
	}
	for _, p := range []string{"/etc/hosts", r.root + "x/sibling.go", r.root + "/build/out.bin", r.root + "/.git/config", r.root + "/src/../../outside.txt"} {
		sameOutput(t, "hook on "+p, r.leasegate(nil, write(p), "hook", "claude-code"), allow)
	}
	reason := fmt.Sprintf("leasegate: %s/.git/leasegate/ledger.db is inside leasegate's state directory %s/.git/leasegate, which agents may never write", r.root, r.root)
	got := r.leasegate(nil, write(r.root+"/.git/leasegate/ledger.db"), "hook", "claude-code")
	if got.code != 2 || got.stderr != reason+"\n" {
		t.Errorf("hook on the state dir = %+v, want a denial: %s", got, reason)
	}
	// The sidecar refuses a write of the operator's file; so does the hook.
	reason = fmt.Sprintf("leasegate: %s/leasegate.json is the operator's gating rule (leasegate.json), which agents may not change", r.root)
	got = r.leasegate(nil, write(r.root+"/leasegate.json"), "hook", "claude-code")
	if got.code != 2 || got.stderr != reason+"\n" {
		t.Errorf("hook on leasegate.json = %+v, want a denial: %s", got, reason)
	}
}

func TestTwoSessionsContendForOneFile(t *testing.T) {
	r := newRepo(t)
	r.serve()
	sameOutput(t, "session A writes src/app.go", r.hook(hooks.ClaudeCode, "pretooluse-write.json", "A"), allow)

	got := r.hook(hooks.ClaudeCode, "pretooluse-edit.json", "B")
	reps := r.blockers()
	if len(reps) != 1 || reps[0].Requester.Name != "cc-B" || reps[0].Holder.Owner.Name != "cc-A" {
		t.Fatalf("blockers = %+v, want cc-B blocked by cc-A", reps)
	}
	sameOutput(t, "session B writes src/app.go", got, wantBlocked(reps[0]))
	if live := reps[0].Holder.Liveness.Status; live != "alive" {
		t.Errorf("holder liveness = %s, want alive (the hook registered the agent's process)", live)
	}

	sameOutput(t, "session A ends", r.hook(hooks.ClaudeCode, "sessionend.json", "A"), allow)
	if h := r.holders(); h["src/app.go"] != "" {
		t.Fatalf("holders after A's SessionEnd = %v, want src/app.go free", h)
	}
	r.mustLeasegate("resolve", reps[0].ID, "--retry")
	if h := r.holders(); h["src/app.go"] != "cc-B" {
		t.Errorf("holders after the operator's retry = %v, want cc-B on src/app.go", h)
	}
	told := fmt.Sprintf("leasegate: an operator resolved blocker %s on src/app.go: retry (the file is yours now if the write is made again)", reps[0].ID)
	sameOutput(t, "session B writes again", r.hook(hooks.ClaudeCode, "pretooluse-edit.json", "B"), contextResult("PreToolUse", told))
	sameOutput(t, "session B writes once more", r.hook(hooks.ClaudeCode, "pretooluse-edit.json", "B"), allow)
}

func TestCodexPatchIsAllOrNothing(t *testing.T) {
	r := newRepo(t)
	r.serve()
	r.mustLeasegate("acquire", "--as", "bob", "src/util.go")
	got := r.hook(hooks.Codex, "pretooluse-apply-patch.json", "X")
	reps := r.blockers()
	if len(reps) != 1 || reps[0].Path != "src/util.go" {
		t.Fatalf("blockers = %+v, want one on src/util.go", reps)
	}
	if got.code != 2 || got.stderr == "\n" || !strings.Contains(got.stderr, "blocker "+reps[0].ID) {
		t.Errorf("codex hook = %+v, want exit 2 and the blocker on stderr", got)
	}
	var out struct {
		Specific struct {
			Decision, Reason string
		} `json:"hookSpecificOutput"`
		Continue *bool `json:"continue"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &out); err != nil {
		t.Fatalf("codex stdout %q: %v", got.stdout, err)
	}
	if out.Continue != nil {
		t.Errorf("codex stdout has continue (fails open in Codex PreToolUse): %s", got.stdout)
	}
	for p, h := range r.holders() {
		if h == "codex-X" {
			t.Errorf("codex-X holds %s after a refused patch, want nothing (all or nothing)", p)
		}
	}
	refused := r.hook(hooks.Codex, "stop.json", "X")
	if refused.code != 0 || !strings.Contains(refused.stdout, `"continue":false`) || !strings.Contains(refused.stdout, reps[0].ID) {
		t.Errorf("codex Stop with an open blocker = %+v, want continue:false naming the blocker, exit 0", refused)
	}
}

// newSharedRepo is a repository whose committed src/shared.go bob holds by
// a check-out, its coordinator serving.
func newSharedRepo(t *testing.T) *repo {
	t.Helper()
	r := newRepo(t)
	r.write("src/shared.go", "package src\n")
	r.git("add", ".")
	r.git("commit", "-q", "-m", "shared")
	r.serve()
	r.mustLeasegate("acquire", "--as", "bob", "src/shared.go")
	return r
}

func TestShellWritesToHeldFilesAreReported(t *testing.T) {
	r := newSharedRepo(t)
	r.write("notes.txt", "dirty before the command\n")

	sameOutput(t, "PreToolUse Bash", r.hook(hooks.ClaudeCode, "pretooluse-bash.json", "A"), allow)
	r.write("src/shared.go", "package src // changed by sed\n")
	r.write("scratch.txt", "a new file nobody holds\n")
	got := r.hook(hooks.ClaudeCode, "posttooluse-bash.json", "A")

	ctx := "leasegate: the shell command changed files that other owners hold, bypassing the lease gate: src/shared.go (leased by bob). This was reported to the operator. Do not change these files again; tell the user."
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": "PostToolUse", "additionalContext": ctx}, "systemMessage": ctx})
	sameOutput(t, "PostToolUse Bash", got, result{stdout: string(out) + "\n"})
	var ung []leasegate.UngatedWrite
	for _, u := range r.status().Ungated {
		if u.Reporter != "watcher" { // the coordinator's own watcher reports what no gate saw, too
			ung = append(ung, u)
		}
	}
	if len(ung) != 1 || ung[0].Path != "src/shared.go" || ung[0].Reporter != "cc-A" || ung[0].Lease == nil || ung[0].Lease.Owner.Name != "bob" {
		t.Errorf("ungated writes = %+v, want src/shared.go reported by cc-A, colliding with bob", ung)
	}

	sameOutput(t, "PreToolUse Bash, second command", r.hook(hooks.ClaudeCode, "pretooluse-bash.json", "A"), allow)
	sameOutput(t, "PostToolUse Bash of a command that changed nothing", r.hook(hooks.ClaudeCode, "posttooluse-bash.json", "A"), allow)
}

func TestStopIdleAndSessionEndRelease(t *testing.T) {
	r := newRepo(t)
	r.serve()
	sameOutput(t, "write", r.hook(hooks.ClaudeCode, "pretooluse-write.json", "A"), allow)
	sameOutput(t, "SubagentStop", r.hook(hooks.ClaudeCode, "subagentstop.json", "A"), allow)
	for _, o := range r.status().Owners {
		if o.Name == "cc-A" && !o.StoppedAt.IsZero() {
			t.Errorf("SubagentStop opened the stop-idle window of the session: %+v", o)
		}
	}
	sameOutput(t, "Stop", r.hook(hooks.ClaudeCode, "stop.json", "A"), allow)
	eventually(t, "stop-idle release after Stop", func() bool { return r.holders()["src/app.go"] == "" })

	sameOutput(t, "write after the release", r.hook(hooks.ClaudeCode, "pretooluse-write.json", "A"), allow)
	if h := r.holders(); h["src/app.go"] != "cc-A" {
		t.Fatalf("holders = %v, want cc-A on src/app.go", h)
	}
	sameOutput(t, "SessionEnd", r.hook(hooks.ClaudeCode, "sessionend.json", "A"), allow)
	if h := r.holders(); len(h) != 0 {
		t.Errorf("holders after SessionEnd = %v, want none", h)
	}
}

func TestLifecycleEventsWithoutCoordinatorAllow(t *testing.T) {
	r := newRepo(t)
	for _, f := range []string{"userpromptsubmit.json", "stop.json", "subagentstop.json", "sessionend.json", "pretooluse-bash.json", "posttooluse-bash.json"} {
		sameOutput(t, f+" without a coordinator", r.hook(hooks.ClaudeCode, f, "A"), allow)
	}
}

func TestInstallCommand(t *testing.T) {
	r := newRepo(t)
	first := r.mustLeasegate("install", "claude-code")
	if !strings.Contains(first, "added claude-code hook PreToolUse Write|Edit|MultiEdit|NotebookEdit") {
		t.Errorf("install printed %q", first)
	}
	path, _ := hooks.LocalSettingsPath(hooks.ClaudeCode, r.root) // install's default: the machine's own file
	settings := readFile(t, path)
	want, _ := json.Marshal(leasegateBin)
	if !strings.Contains(settings, `"command": `+string(want)) || !strings.Contains(settings, `"timeout": 240`) {
		t.Errorf("settings do not run this binary with timeout 240:\n%s", settings)
	}
	if again := r.mustLeasegate("install", "claude-code"); !strings.Contains(again, "already installed") || readFile(t, path) != settings {
		t.Errorf("second install printed %q or changed the file", again)
	}
	r.mustLeasegate("uninstall", "claude-code")
	if got := r.leasegate(nil, "", "uninstall", "claude-code"); got.code != 0 || !strings.Contains(got.stdout, "nothing to remove") {
		t.Errorf("second uninstall = %+v", got)
	}
	if got := r.leasegate(nil, "", "install", "git", "--user"); got.code != 2 {
		t.Errorf("install git --user = %+v, want a usage error", got)
	}
}

func TestHookGatesTheFileALinkNames(t *testing.T) {
	r := newRepo(t)
	r.write("docs/real.md", "real\n")
	if err := os.Symlink("docs/real.md", filepath.Join(r.root, "alias.md")); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(r.root, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	r.serve()
	write := func(path string) string {
		return `{"session_id":"A","cwd":"` + r.root + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + path + `"}}`
	}
	sameOutput(t, "hook on a link", r.leasegate(nil, write(r.root+"/alias.md"), "hook", "claude-code"), allow)
	sameOutput(t, "hook through a link out of the workspace", r.leasegate(nil, write(r.root+"/elsewhere/x.txt"), "hook", "claude-code"), allow)
	if h := r.holders(); len(h) != 1 || h["docs/real.md"] != "cc-A" {
		t.Errorf("holders = %v, want only cc-A on docs/real.md, the file the link names", h)
	}
}

func TestHookGivesUpAtItsDeadline(t *testing.T) {
	r := newRepo(t)
	r.serve()
	r.mustLeasegate("acquire", "--as", "bob", "src/app.go")
	// The answer names the deadline: had the hook waited for the 1s retry,
	// it would name the blocker.
	got := r.hook(hooks.ClaudeCode, "pretooluse-write.json", "A", "LEASEGATE_HOOK_TIMEOUT=300ms")
	reason := "leasegate: gave up after 300ms waiting for the gate's answer on src/app.go, so the write is refused. Do not write it by other means; tell the user (leasegate status shows who holds it)."
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
	sameOutput(t, "hook with a 300ms deadline on a held file", got, result{stdout: string(out) + "\n", stderr: reason + "\n", code: 2})
}

func TestHookActsAsLeasegateAs(t *testing.T) {
	r := newRepo(t)
	r.serve()
	sameOutput(t, "hook with LEASEGATE_AS=alice", r.hook(hooks.ClaudeCode, "pretooluse-write.json", "A", "LEASEGATE_AS=alice"), allow)
	if h := r.holders(); h["src/app.go"] != "alice" {
		t.Errorf("holders = %v, want alice on src/app.go", h)
	}
}

// addSubmodule adds, as sub, a repository whose one commit holds x.txt, and
// commits it.
func (r *repo) addSubmodule() {
	r.t.Helper()
	lib := newRepo(r.t)
	lib.write("x.txt", "x\n")
	lib.git("add", ".")
	lib.git("commit", "-q", "-m", "x")
	r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.root, "sub")
	r.git("commit", "-q", "-m", "sub")
}

// TestShellWritesInSubmoduleAreReported: a shell command that changes a
// file of a submodule another owner holds is reported by the file's name
// from the superproject's root, though the superproject's status shows
// only the submodule's directory.
func TestShellWritesInSubmoduleAreReported(t *testing.T) {
	r := newRepo(t)
	r.addSubmodule()
	r.serve()
	r.mustLeasegate("acquire", "--as", "bob", "sub/x.txt")

	sameOutput(t, "PreToolUse Bash", r.hook(hooks.ClaudeCode, "pretooluse-bash.json", "A"), allow)
	r.write("sub/x.txt", "x changed by sed\n")
	got := r.hook(hooks.ClaudeCode, "posttooluse-bash.json", "A")
	if !strings.Contains(got.stdout, "sub/x.txt (leased by bob)") {
		t.Errorf("PostToolUse Bash after a write to sub/x.txt = %+v, want it reported as held by bob", got)
	}
}

// TestHookInSubmoduleLeasesFromSuperproject: an agent session started
// inside a submodule writes through the superproject's coordinator, and
// its lease names the file from the superproject's root.
func TestHookInSubmoduleLeasesFromSuperproject(t *testing.T) {
	lib := newRepo(t)
	r := newRepo(t)
	r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.root, "sub")
	r.serve()
	sub := filepath.Join(r.root, "sub")
	in := strings.NewReplacer(`"cwd": "`+r.root+`"`, `"cwd": "`+sub+`"`, r.root+"/src/app.go", sub+"/app.go").
		Replace(r.input(hooks.ClaudeCode, "pretooluse-write.json", "A"))
	sameOutput(t, "PreToolUse Write in the submodule", r.leasegate(nil, in, "hook", string(hooks.ClaudeCode)), allow)
	if h := r.holders(); h["sub/app.go"] != "cc-A" {
		t.Errorf("holders = %v, want cc-A on sub/app.go", h)
	}
}
