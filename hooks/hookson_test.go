//go:build !windows

package hooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/hooks"
)

// geminiGitEnv is the git part of the environment Gemini CLI gives its
// shell commands: core.hooksPath empty, over every config file.
var geminiGitEnv = []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0="}

// geminiShellInput is Gemini CLI's BeforeTool input for run_shell_command
// of command in r.
func geminiShellInput(t *testing.T, r *repo, command string) string {
	t.Helper()
	var in map[string]any
	if err := json.Unmarshal([]byte(r.input(hooks.Gemini, "beforetool-shell.json", "G")), &in); err != nil {
		t.Fatal(err)
	}
	in["tool_input"].(map[string]any)["command"] = command
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// rewritten returns the command a BeforeTool answer hands Gemini CLI to
// run, "" when it hands none.
func rewritten(t *testing.T, got result) string {
	t.Helper()
	if got.code != 0 {
		t.Fatalf("BeforeTool run_shell_command = %+v, want exit 0", got)
	}
	if got.stdout == "" {
		return ""
	}
	var out struct {
		Specific struct {
			Event     string `json:"hookEventName"`
			ToolInput struct {
				Command string `json:"command"`
			} `json:"tool_input"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &out); err != nil || out.Specific.Event != "BeforeTool" {
		t.Fatalf("BeforeTool printed %q, want hookSpecificOutput for BeforeTool (%v)", got.stdout, err)
	}
	return out.Specific.ToolInput.Command
}

// TestGeminiShellCommitGuarded: where `install git` is in place, Gemini
// CLI's shell command that commits is handed back with git's hooks turned
// on for its git commit (`git -c core.hooksPath=...` where git heads the
// command, else a first line that exports GIT_CONFIG_PARAMETERS), so under
// Gemini CLI's environment (git's hooks off) the commit of bob's file is
// refused before it is made, while the command as the model wrote it
// commits. A command that names no commit is left alone, and so is every
// command once `uninstall git` removed the hooks.
func TestGeminiShellCommitGuarded(t *testing.T) {
	r := newSharedRepo(t)
	r.mustLeasegate("install", "git")
	r.write("src/shared.go", "package src // changed outside the gate\n")
	const command = "git add -A && git commit -q -m shell"
	for _, tc := range []struct{ command, want string }{
		{command, "git add -A && git -c core.hooksPath="},
		{"git add -A && command git commit -q -m shell", "export GIT_CONFIG_PARAMETERS="},
	} {
		cmd := rewritten(t, r.leasegate(nil, geminiShellInput(t, r, tc.command), "hook", "gemini"))
		if !strings.HasPrefix(cmd, tc.want) {
			t.Fatalf("%q was handed back as %q, want it to start %q", tc.command, cmd, tc.want)
		}
		got := r.exec(geminiGitEnv, "", "bash", "-c", cmd)
		if got.code != 1 || !strings.Contains(got.stderr, "leasegate: commit refused") || !strings.Contains(got.stderr, "src/shared.go: leased by bob") {
			t.Errorf("%q handed back under Gemini CLI's git settings = %+v, want the commit refused naming bob's file", cmd, got)
		}
		if log := r.git("log", "--format=%s"); log != "shared\ninit\n" {
			t.Errorf("commits = %q, want none made", log)
		}
	}
	if got := r.exec(geminiGitEnv, "", "bash", "-c", command); got.code != 0 {
		t.Errorf("the command as written under Gemini CLI's git settings = %+v, want it to commit (git's hooks off)", got)
	}

	if cmd := rewritten(t, r.leasegate(nil, geminiShellInput(t, r, "ls -l src"), "hook", "gemini")); cmd != "" {
		t.Errorf("ls was handed back as %q, want it left alone", cmd)
	}
	r.mustLeasegate("uninstall", "git")
	if cmd := rewritten(t, r.leasegate(nil, geminiShellInput(t, r, command), "hook", "gemini")); cmd != "" {
		t.Errorf("after uninstall git the command was handed back as %q, want it left alone", cmd)
	}
	if _, err := os.Stat(filepath.Join(r.root, ".git", "leasegate", "git-hooks")); !os.IsNotExist(err) {
		t.Errorf("uninstall git left .git/leasegate/git-hooks: %v", err)
	}
}

// TestGitHooksOnOnlyInTheirRepository: a commit in another repository,
// made by a command that turned the workspace's hooks on, runs no
// leasegate there (it would refuse the commit: no coordinator answers
// for that repository), while one in the workspace, or in a submodule of
// it, runs the guard.
func TestGitHooksOnOnlyInTheirRepository(t *testing.T) {
	r := newSharedRepo(t)
	r.addSubmodule()
	r.mustLeasegate("install", "git")
	r.mustLeasegate("acquire", "--as", "bob", "sub/x.txt")
	other := newRepo(t)
	other.write("x.txt", "x\n")
	command := "git -C " + other.root + " add -A && git -C " + other.root + " commit -q -m other"

	cmd := rewritten(t, r.leasegate(nil, geminiShellInput(t, r, command), "hook", "gemini"))
	if cmd == "" {
		t.Fatalf("the command %q was left alone, want it handed back with git's hooks on", command)
	}
	if got := r.exec(geminiGitEnv, "", "bash", "-c", cmd); got.code != 0 {
		t.Errorf("a commit in another repository with the workspace's hooks on = %+v, want it made", got)
	}
	r.write("src/shared.go", "package src // changed outside the gate\n")
	inside := strings.ReplaceAll(cmd, other.root, r.root)
	if got := r.exec(geminiGitEnv, "", "bash", "-c", inside); got.code != 1 || !strings.Contains(got.stderr, "src/shared.go: leased by bob") {
		t.Errorf("the same command in the workspace = %+v, want the commit refused", got)
	}
	r.write("sub/x.txt", "x changed\n")
	inSub := strings.ReplaceAll(cmd, other.root, filepath.Join(r.root, "sub"))
	if got := r.exec(geminiGitEnv, "", "bash", "-c", inSub); got.code != 1 || !strings.Contains(got.stderr, "sub/x.txt: leased by bob") {
		t.Errorf("the same command in the submodule = %+v, want the commit refused", got)
	}
}

// TestDiagnoseGeminiWithoutHooksOn: where the repository's guard is
// installed without the hooks-on directory (an older `install git`),
// doctor says Gemini CLI's commits go unguarded and to install git again,
// after which it says nothing of it.
func TestDiagnoseGeminiWithoutHooksOn(t *testing.T) {
	r := newRepo(t)
	r.mustLeasegate("install", "gemini")
	r.mustLeasegate("install", "git")
	cfg := hooks.DoctorConfig{Root: r.root, File: hooks.SettingsPath(hooks.Gemini, r.root), Home: t.TempDir()}
	says := func() string {
		for _, p := range hooks.Diagnose(context.Background(), hooks.Gemini, cfg).Problems {
			if strings.Contains(p, "git-hooks") {
				return p
			}
		}
		return ""
	}
	if p := says(); p != "" {
		t.Errorf("doctor after install git says %q", p)
	}
	if err := os.RemoveAll(filepath.Join(r.root, ".git", "leasegate", "git-hooks")); err != nil {
		t.Fatal(err)
	}
	if p := says(); !strings.Contains(p, "is missing: a commit of a file another owner holds is made") || !strings.Contains(p, "leasegate install git") {
		t.Errorf("doctor without the hooks-on directory says %q, want it missing and install git again", p)
	}
	r.mustLeasegate("install", "git")
	if p := says(); p != "" {
		t.Errorf("doctor after installing git again says %q", p)
	}
}

// TestHooksOnLineQuotes: the line given to a shell command has git read
// core.hooksPath as the directory named, whatever its path holds, over
// Gemini CLI's empty one and after a GIT_CONFIG_PARAMETERS already set.
func TestHooksOnLineQuotes(t *testing.T) {
	r := newRepo(t)
	for _, dir := range []string{"/tmp/plain/.git/leasegate/git-hooks", "/tmp/a b", "/tmp/it's", `/tmp/$HOME`, "/tmp/back\\slash", `/tmp/q"uote`, "/tmp/`tick`", "/tmp/bang!"} {
		line := hooks.HooksOnLine(dir)
		env := append([]string{"GIT_CONFIG_PARAMETERS='core.abbrev=9'"}, geminiGitEnv...)
		got := r.exec(env, "", "bash", "-c", line+"\ngit config --get core.hooksPath && git config --get core.abbrev")
		if got.code != 0 || got.stdout != dir+"\n9\n" {
			t.Errorf("HooksOnLine(%q) = %q; git then read %+v, want %q and core.abbrev kept", dir, line, got, dir)
		}
	}
}

// TestHooksOnGitForms: `-c core.hooksPath=DIR` goes after each git that
// heads a command naming commit, merge or pull, and nowhere else; a
// command whose commit the scan cannot place is given none (the caller
// exports GIT_CONFIG_PARAMETERS instead).
func TestHooksOnGitForms(t *testing.T) {
	const c = " -c core.hooksPath=/h"
	for _, tc := range []struct{ in, want string }{
		{"git commit -m x", "git" + c + " commit -m x"},
		{"git add -A && git commit -qm 'a; merge | b'", "git add -A && git" + c + " commit -qm 'a; merge | b'"},
		{"cd sub; git pull\ngit status", "cd sub; git" + c + " pull\ngit status"},
		{"(git merge main) || echo no", "(git" + c + " merge main) || echo no"},
		{`git commit -m "say \"commit\""`, "git" + c + ` commit -m "say \"commit\""`},
		{"sudo git commit -m x", ""},
		{"if git commit -m x; then echo ok; fi", ""},
		{`echo "git commit"`, ""},
		{"git commit -F- <<EOF\nx\nEOF", ""},
		{"git commit -m `date`", ""},
		{"git commit -m 'open", ""},
	} {
		got, ok := hooks.HooksOnGit("/h", tc.in)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("HooksOnGit(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}
