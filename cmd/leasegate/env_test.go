package main

import (
	"flag"
	"strings"
	"testing"

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
