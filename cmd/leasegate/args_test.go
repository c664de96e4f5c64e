package main

import (
	"context"
	"strings"
	"testing"
)

// TestArgumentsTakeEffectOrAreRefused: a positional argument a command
// does not take, a flag it would not use (--token where no token is
// sent) or a flag value it could only fail on later or take for another
// (a negative --idle-exit served forever, a bad --listen or --notify-url
// failed the start with exit 5), is a usage error naming it, before
// anything runs; such arguments were ignored, so `serve --stop extra`
// stopped the coordinator and `stop --as alice --token 3` reported
// success with the token unused.
func TestArgumentsTakeEffectOrAreRefused(t *testing.T) {
	byName := map[string]command{}
	for _, c := range commands() {
		byName[c.name] = c
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"status", "extra"}, `takes no arguments, got "extra"`},
		{[]string{"events", "extra"}, `takes no arguments, got "extra"`},
		{[]string{"serve", "extra"}, `takes no arguments, got "extra"`},
		{[]string{"serve", "--stop", "extra"}, `takes no arguments, got "extra"`},
		{[]string{"stop", "--as", "alice", "extra"}, `takes no arguments, got "extra"`},
		{[]string{"demo", "extra"}, `takes no arguments, got "extra"`},
		{[]string{"ui", "extra"}, `takes no arguments, got "extra"`},
		{[]string{"doctor", "extra"}, `takes no arguments, got "extra"`},
		{[]string{"version", "extra"}, `takes no arguments, got "extra"`},
		{[]string{"blockers", "one", "two"}, "at most one BLOCKER_ID"},
		{[]string{"stop", "--as", "alice", "--token", "3"}, "-token"},
		{[]string{"acquire", "a.go", "--as", "alice", "--token", "3"}, "-token"},
		{[]string{"evict", "a.go", "--reason", "r", "--token", "3"}, "-token"},
		{[]string{"serve", "--idle-exit", "-1s"}, "--idle-exit -1s: want 0 (never) or a positive duration"},
		{[]string{"serve", "--ready-fd", "-3"}, "--ready-fd -3"},
		{[]string{"serve", "--listen", "bogus"}, "--listen bogus: address bogus: missing port"},
		{[]string{"serve", "--listen", "127.0.0.1:99999"}, "invalid port"},
		{[]string{"serve", "--notify-url", "ftp://x"}, `notify url "ftp://x": want an http or https URL`},
		{[]string{"ui", "--addr", "127.0.0.1:99999"}, "invalid port"},
		{[]string{"events", "--after", "-1"}, `invalid value "-1" for flag -after: want a sequence number >= 0`},
		{[]string{"history", "--limit", "-1"}, "--limit -1: want 0 (all) or a positive number"},
		{[]string{"blockers", "--markdown", "--json"}, "--markdown and --json are two forms"},
		{[]string{"blockers", "01JD3", "--all"}, "--all lists the resolved blockers too"},
		{[]string{"install", "git", "--json"}, "-json"},
		{[]string{"uninstall", "git", "--no-start"}, "-no-start"},
		{[]string{"install", "claude-code", "--log-level", "debug"}, "-log-level"},
		{[]string{"serve", "--stop", "--notify-url", "http://127.0.0.1:9/n"}, "--notify-url configures a coordinator that serves"},
		{[]string{"serve", "--stop", "--retry-after", "1s"}, "--retry-after configures a coordinator that serves"},
		{[]string{"serve", "--stop", "--idle-exit", "5m"}, "--idle-exit configures a coordinator that serves"},
		{[]string{"serve", "--no-start"}, "serve is the coordinator"},
		{[]string{"hook", "git-pre-commit", "--timeout", "1s"}, "--timeout is for the agent hooks"},
		{[]string{"hook", "git-post-commit", "--json"}, "--json does not apply"},
		{[]string{"completion", "bash", "--json"}, `want one argument, bash, zsh or fish; got 2 (it takes no flags: ["bash" "--json"])`},
	}
	// Nothing may reach a coordinator of this checkout if a command
	// took its arguments after all.
	t.Chdir(t.TempDir())
	t.Setenv("LEASEGATE_NO_START", "1")
	for _, tt := range tests {
		err := byName[tt.args[0]].run(context.Background(), tt.args[1:])
		if code, _ := classify(err); err == nil || code != exitUsage || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("leasegate %s = %v (exit %d), want a usage error saying %q", strings.Join(tt.args, " "), err, code, tt.want)
		}
	}
}
