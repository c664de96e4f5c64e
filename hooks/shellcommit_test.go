package hooks_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/hooks"
)

// TestShellCommitWithoutGitHooks: a shell command commits with git's
// hooks off (as Gemini CLI runs every shell command): the hook after it
// releases the session's committed file, as the post-commit hook would,
// and tells the model that the commit took a file bob holds. A later
// command that only checks out another commit is told nothing of commits.
func TestShellCommitWithoutGitHooks(t *testing.T) {
	r := newSharedRepo(t)
	sameOutput(t, "write", r.hook(hooks.ClaudeCode, "pretooluse-write.json", "A"), allow)
	r.write("src/app.go", "package app\n")
	r.write("src/shared.go", "package src // changed outside the gate\n")

	sameOutput(t, "PreToolUse Bash", r.hook(hooks.ClaudeCode, "pretooluse-bash.json", "A"), allow)
	r.git("-c", "core.hooksPath=", "add", "src")
	r.git("-c", "core.hooksPath=", "commit", "-q", "-m", "both")
	got := r.hook(hooks.ClaudeCode, "posttooluse-bash.json", "A")

	want := "committed files that other owners hold, which leasegate's git guard refuses, but git's hooks did not run: src/shared.go (leased by bob, in commit "
	if got.code != 0 || !strings.Contains(got.stdout, want) {
		t.Errorf("PostToolUse Bash after a commit without hooks = %+v, want exit 0 and the model told %q", got, want)
	}
	if h := r.holders(); h["src/app.go"] != "" || h["src/shared.go"] != "bob" {
		t.Errorf("holders = %v, want src/app.go released by the commit, src/shared.go still bob's", h)
	}
	// A command that moves HEAD without committing (a checkout) made no
	// commit: nothing is told of the commit it moved away from.
	sameOutput(t, "PreToolUse Bash, checkout", r.hook(hooks.ClaudeCode, "pretooluse-bash.json", "A"), allow)
	r.git("checkout", "-q", "--detach", "HEAD~1")
	if got := r.hook(hooks.ClaudeCode, "posttooluse-bash.json", "A"); strings.Contains(got.stdout, "committed files") {
		t.Errorf("PostToolUse Bash after a checkout = %+v, want no word of a commit", got)
	}
	var evs []gate.Event
	if err := json.Unmarshal([]byte(r.mustLeasegate("history", "src/app.go", "--json")), &evs); err != nil {
		t.Fatal(err)
	}
	released := false
	for _, e := range evs {
		released = released || e.Type == gate.EventReleased && e.Actor == "cc-A" && strings.HasPrefix(e.Reason, "committed in ")
	}
	if !released {
		t.Errorf("src/app.go history = %+v, want a release on commit by cc-A", evs)
	}
}
