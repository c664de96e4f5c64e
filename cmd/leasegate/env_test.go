package main

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/hooks"
	"github.com/leasegate/leasegate/internal/envname"
)

// TestNoStartEnv: LEASEGATE_NO_START takes what a boolean flag takes, for
// every command as for the hooks; any other value is a usage error naming
// the variable, never taken for "start a coordinator".
func TestNoStartEnv(t *testing.T) {
	tests := []struct {
		value   string
		noStart bool
		refused bool
	}{
		{value: "", noStart: false},
		{value: "1", noStart: true},
		{value: "true", noStart: true},
		{value: "0", noStart: false},
		{value: "false", noStart: false},
		{value: "yes", refused: true},
		{value: "on", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Setenv(envname.NoStart, tt.value)
			for _, name := range []string{"acquire", "hook"} {
				var c common
				var h hookFlags
				fs := flag.NewFlagSet(name, flag.ContinueOnError)
				got, parseFlags := &c.noStart, func() error { return parse(fs, nil) }
				if name == "hook" {
					h.register(fs)
					got, parseFlags = &h.noStart, func() error { _, err := h.parse(fs, nil); return err }
				} else {
					c.register(fs, false)
				}
				err := parseFlags()
				if tt.refused {
					if code, _ := classify(err); code != exitUsage || !strings.Contains(err.Error(), envname.NoStart+`="`+tt.value+`"`) {
						t.Errorf("%s with %s=%q: %v (exit %d), want a usage error naming it", name, envname.NoStart, tt.value, err, code)
					}
					continue
				}
				if err != nil || *got != tt.noStart {
					t.Errorf("%s with %s=%q: no-start %v, %v; want %v, nil", name, envname.NoStart, tt.value, *got, err, tt.noStart)
				}
			}
		})
	}
}

// TestEnvNamedInItsError: a value refused that came from the environment
// is named as the variable that set it, not as a flag the user never
// typed; one given as the flag is named as the flag.
func TestEnvNamedInItsError(t *testing.T) {
	tests := []struct {
		env, value string
		args       []string
		want       string
	}{
		{env: envname.LogLevel, value: "loud", args: []string{"--as", "x", "--", "true"}, want: envname.LogLevel + `="loud"`},
		{env: envname.LogLevel, value: "info", args: []string{"--log-level", "loud", "--as", "x", "--", "true"}, want: `--log-level "loud"`},
		{env: envname.Notices, value: "foo", args: []string{"--as", "x", "--", "true"}, want: envname.Notices + `="foo"`},
		{env: envname.Notices, value: "log", args: []string{"--notices", "foo", "--as", "x", "--", "true"}, want: `--notices "foo"`},
	}
	for _, tt := range tests {
		t.Run(tt.env+"="+tt.value, func(t *testing.T) {
			t.Setenv(tt.env, tt.value)
			err := cmdRun(t.Context(), tt.args)
			if code, _ := classify(err); code != exitUsage || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run %q with %s=%q: %v (exit %d), want a usage error naming %s", tt.args, tt.env, tt.value, err, code, tt.want)
			}
		})
	}
}

// TestHookDurations: the hook's --timeout and --unreachable, or their
// variables, take a positive duration; anything else is a usage error
// naming where it came from (it was taken for the default with a warning
// no agent shows), unless the flag overrides a bad variable.
func TestHookDurations(t *testing.T) {
	tests := []struct {
		env, value string
		args       []string
		want       string // in the usage error; empty: accepted
		timeout    time.Duration
	}{
		{env: envname.HookTimeout, value: "100s", timeout: 100 * time.Second},
		{env: envname.HookTimeout, value: "soon", want: envname.HookTimeout + `="soon"`},
		{env: envname.HookTimeout, value: "0s", want: envname.HookTimeout + `="0s"`},
		{env: envname.HookUnreachable, value: "-1s", want: envname.HookUnreachable + `="-1s"`},
		{env: envname.HookTimeout, value: "soon", args: []string{"--timeout", "20s"}, timeout: 20 * time.Second},
		{env: envname.HookTimeout, value: "", args: []string{"--timeout", "0"}, want: "-timeout"},
		{env: envname.HookTimeout, value: "", timeout: hooks.DefaultTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.env+"="+tt.value+strings.Join(tt.args, " "), func(t *testing.T) {
			t.Setenv(tt.env, tt.value)
			var h hookFlags
			fs := flag.NewFlagSet("hook", flag.ContinueOnError)
			h.register(fs)
			_, err := h.parse(fs, tt.args)
			if tt.want != "" {
				if code, _ := classify(err); code != exitUsage || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("hook %q with %s=%q: %v (exit %d), want a usage error naming %s", tt.args, tt.env, tt.value, err, code, tt.want)
				}
				return
			}
			if err != nil || (tt.timeout != 0 && h.timeout != tt.timeout) {
				t.Errorf("hook %q with %s=%q: timeout %s, %v; want %s, nil", tt.args, tt.env, tt.value, h.timeout, err, tt.timeout)
			}
		})
	}
}

// TestAgentArg: the agent a hook call names is found among arguments the
// flags could not parse, a flag's value not taken for it.
func TestAgentArg(t *testing.T) {
	tests := []struct {
		args []string
		want hooks.Agent
		ok   bool
	}{
		{args: []string{"claude-code", "--timeout", "soon"}, want: hooks.ClaudeCode, ok: true},
		{args: []string{"--as", "codex", "claude-code"}, want: hooks.ClaudeCode, ok: true},
		{args: []string{"--as=codex", "--no-start", "gemini"}, want: hooks.Gemini, ok: true},
		{args: []string{"--timeout", "soon", "git-pre-commit"}},
	}
	for _, tt := range tests {
		var h hookFlags
		fs := flag.NewFlagSet("hook", flag.ContinueOnError)
		h.register(fs)
		if got, ok := agentArg(fs, tt.args); got != tt.want || ok != tt.ok {
			t.Errorf("agentArg(%q) = %q, %v; want %q, %v", tt.args, got, ok, tt.want, tt.ok)
		}
	}
}
