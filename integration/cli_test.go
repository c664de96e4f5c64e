package integration_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGlobalFlagsBeforeCommand: flags every command takes work before
// the command name too.
func TestGlobalFlagsBeforeCommand(t *testing.T) {
	r := newRepo(t, nil)
	other := t.TempDir()
	r2 := &repo{t: t, dir: other, env: r.env}
	out := r2.mustLG("--workspace", r.dir, "--json", "status")
	var s struct {
		Workspace string `json:"workspace"`
	}
	mustJSON(t, out, &s)
	if s.Workspace != r.dir {
		t.Errorf("leasegate --workspace %s --json status answered for %q", r.dir, s.Workspace)
	}
	if _, errs, code := r.lg("--log-level", "verbose", "status"); code != 2 || !strings.Contains(errs, "verbose") {
		t.Errorf("--log-level verbose before status: exit %d, want 2 naming it: %s", code, errs)
	}
}

// TestExitCodesAsDocumented: what is not found or out of bounds is a
// usage error (2), not a denial; a nonexistent --workspace is 2; a
// worker command that does not exist is 127 with one line and starts
// nothing; --ttl 0s and an unknown --log-level are refused.
func TestExitCodesAsDocumented(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	cases := []struct {
		args []string
		code int
		says string
	}{
		{[]string{"acquire", "a.txt", "--as", "carol", "--ttl", "10000h"}, 2, "LEASE_TTL_OUT_OF_BOUNDS"},
		{[]string{"acquire", "a.txt", "--as", "carol", "--ttl", "0s"}, 2, "--ttl 0s"},
		{[]string{"resolve", "01JD0000000000000000000000", "--retry"}, 2, "no blocker"},
		{[]string{"release", "a.txt", "--as", "nobody"}, 2, "no active lease"},
		{[]string{"history", "no-such-name"}, 2, `"no-such-name" is no lease id, blocker id or file of this workspace, and no event names it`},
		{[]string{"status", "--workspace", filepath.Join(r.dir, "missing")}, 2, "missing"},
		{[]string{"status", "--log-level", "loud"}, 2, "loud"},
		{[]string{"run", "--as", "w", "--", "no-such-command-here"}, 127, "no-such-command-here: command not found"},
	}
	for _, c := range cases {
		_, errs, code := r.lg(c.args...)
		if code != c.code || !strings.Contains(errs, c.says) {
			t.Errorf("leasegate %v: exit %d, want %d saying %q\nstderr: %s", c.args, code, c.code, c.says, errs)
		}
		if c.code == 127 && strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("run of a missing command said more than one line:\n%s", errs)
		}
	}
	if o, ok := r.ownerView("w"); ok {
		t.Errorf("run of a missing command registered its owner: %+v", o)
	}
}

// TestWrongOwnerByPathOrID: renew, release and checkin of another
// owner's lease are the wrong owner, exit 3 OWNER_MISMATCH naming the
// holder, whether the lease is named by its id or by its path; by path
// this was "no active lease", exit 2, as if nobody held it.
func TestWrongOwnerByPathOrID(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	var res struct {
		Leases []struct {
			ID string `json:"id"`
		} `json:"leases"`
	}
	mustJSON(t, r.mustLG("acquire", "a.txt", "--as", "carol", "--json"), &res)
	for _, op := range []string{"renew", "release", "checkin"} {
		for _, arg := range []string{"a.txt", res.Leases[0].ID} {
			_, errs, code := r.lg(op, arg, "--as", "dave")
			if code != 3 || !strings.Contains(errs, "OWNER_MISMATCH") || !strings.Contains(errs, "carol") {
				t.Errorf("leasegate %s %s --as dave: exit %d, want 3 OWNER_MISMATCH naming carol\nstderr: %s", op, arg, code, errs)
			}
		}
	}
}

// TestAcquireHeldLeaseIsIdempotent: acquiring what you already hold
// answers with the same lease, exit 0, a Go file with the test file its
// pair rule added too (it was refused, exit 3, as an overlap with itself).
func TestAcquireHeldLeaseIsIdempotent(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.go": "package b\n"})
	for _, path := range []string{"a.txt", "b.go"} {
		first := r.mustLG("acquire", path, "--as", "carol", "--json")
		second := r.mustLG("acquire", path, "--as", "carol", "--json")
		var a, b struct {
			Leases []struct {
				ID    string `json:"id"`
				Token uint64 `json:"fencing_token"`
			} `json:"leases"`
		}
		mustJSON(t, first, &a)
		mustJSON(t, second, &b)
		if len(a.Leases) != 1 || len(b.Leases) != 1 || a.Leases[0] != b.Leases[0] {
			t.Errorf("acquire %s twice: %+v then %+v, want the same lease", path, a.Leases, b.Leases)
		}
	}
	if _, errs, code := r.lg("acquire", "a.txt", "--as", "dave"); code != 3 {
		t.Errorf("acquire of carol's lease by dave: exit %d, want 3: %s", code, errs)
	}
}

// TestJSONErrorsOnStderr: under --json an error is one JSON object on
// stderr with its reason code and exit code.
func TestJSONErrorsOnStderr(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	r.mustLG("acquire", "a.txt", "--as", "carol")
	for _, c := range []struct {
		args   []string
		reason string
		code   int
	}{
		{[]string{"--json", "acquire", "a.txt", "--as", "dave"}, "LEASE_HELD_BY_OTHER", 3},
		{[]string{"acquire", "a.txt", "--as", "dave", "--json", "--bogus"}, "USAGE", 2},
	} {
		out, errs, code := r.lg(c.args...)
		var e struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
				Exit    int    `json:"exit"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(errs), &e); err != nil || code != c.code || e.Error.Code != c.reason || e.Error.Exit != c.code || e.Error.Message == "" {
			t.Errorf("leasegate %v: exit %d, stderr %q (%v), want JSON with code %s and exit %d; stdout %q", c.args, code, errs, err, c.reason, c.code, out)
		}
	}
}

// TestVersionHelpSuggest: --version and -V, version --json from the build
// info, per-command help with only that command's flags, and a
// suggestion for a mistyped command.
func TestVersionHelpSuggest(t *testing.T) {
	r := newCheckout(t, nil)
	for _, flag := range []string{"--version", "-V"} {
		if out, errs, code := r.lg(flag); code != 0 || !strings.HasPrefix(out, "leasegate ") {
			t.Errorf("leasegate %s: exit %d, out %q, err %q", flag, code, out, errs)
		}
	}
	var v struct {
		Version string `json:"version"`
		Go      string `json:"go"`
	}
	mustJSON(t, r.mustLG("version", "--json"), &v)
	if v.Version == "" || v.Version == "dev" || !strings.HasPrefix(v.Go, "go") {
		t.Errorf("version --json: %+v, want the build info's module version and Go version", v)
	}
	help := r.mustLG("help", "acquire")
	for _, want := range []string{"usage:", "leasegate acquire PATH|GLOB...", "-ttl", "examples:"} {
		if !strings.Contains(help, want) {
			t.Errorf("help acquire lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "-follow") || strings.Contains(help, "-retry-after") {
		t.Errorf("help acquire lists another command's flags:\n%s", help)
	}
	if h2 := r.mustLG("acquire", "--help"); h2 != help {
		t.Errorf("acquire --help differs from help acquire:\n%s", h2)
	}
	if _, errs, code := r.lg("statsu"); code != 2 || !strings.Contains(errs, `did you mean "status"`) {
		t.Errorf("leasegate statsu: exit %d, want 2 suggesting status: %s", code, errs)
	}
}

// TestCompletionScripts: the bash and fish scripts load in their shell
// and complete the commands and a command's flags.
func TestCompletionScripts(t *testing.T) {
	r := newCheckout(t, nil)
	bashScript := r.mustLG("completion", "bash")
	for _, want := range []string{"status", "--follow", "claude-code"} {
		if !strings.Contains(bashScript, want) {
			t.Errorf("completion bash lacks %q", want)
		}
	}
	script := filepath.Join(t.TempDir(), "c.bash")
	if err := os.WriteFile(script, []byte(bashScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", "-c", `source "$1"; COMP_WORDS=(leasegate events --fo); COMP_CWORD=2; _leasegate; echo "${COMPREPLY[*]}"`, "bash", script).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "--follow" {
		t.Errorf("bash completion of `leasegate events --fo`: %q (%v), want --follow", out, err)
	}
	out, err = exec.Command("bash", "-c", `source "$1"; COMP_WORDS=(leasegate --workspace /tmp sta); COMP_CWORD=3; _leasegate; echo "${COMPREPLY[*]}"`, "bash", script).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "status" {
		t.Errorf("bash completion of `leasegate --workspace /tmp sta`: %q (%v), want status", out, err)
	}
	if fish := r.mustLG("completion", "fish"); !strings.Contains(fish, "complete -c leasegate") {
		t.Errorf("completion fish: %s", fish)
	}
	if _, _, code := r.lg("completion", "tcsh"); code != 2 {
		t.Errorf("completion tcsh: exit %d, want 2", code)
	}
}

// TestServeOutsideGitNeedsWorkspace: serve, like run and acquire, makes
// no workspace of a directory outside any git checkout unless named.
func TestServeOutsideGitNeedsWorkspace(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &repo{t: t, dir: dir, env: cleanEnv()}
	t.Cleanup(func() { stopServe(t, dir) })
	out, errs, code := r.lg("serve", "--idle-exit", "1s")
	if code != 2 || !strings.Contains(errs, dir) || !strings.Contains(errs, "--workspace") {
		t.Errorf("serve outside git: exit %d, want 2 naming %s and --workspace\nstdout: %s\nstderr: %s", code, dir, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".leasegate")); !os.IsNotExist(err) {
		t.Errorf("serve outside git made a state directory (stat: %v)", err)
	}
}
