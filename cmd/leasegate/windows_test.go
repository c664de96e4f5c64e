package main

import (
	"errors"
	"flag"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/envname"
)

// TestWindowFlags: a window comes from the flag, else the environment,
// with its source; an unusable value from either is a usage error at
// parse time, unless a valid flag overrides a bad environment value.
func TestWindowFlags(t *testing.T) {
	for _, tc := range []struct {
		name, retryEnv, idleEnv string
		args                    []string
		want                    gate.Windows
		usage                   bool
	}{
		{name: "none", want: gate.Windows{}},
		{name: "flags", args: []string{"--retry-after", "2s", "--idle-after", "1s"},
			want: gate.Windows{Retry: gate.Window{After: 2 * time.Second, From: gate.FromFlag}, Idle: gate.Window{After: time.Second, From: gate.FromFlag}}},
		{name: "env", retryEnv: "5s", want: gate.Windows{Retry: gate.Window{After: 5 * time.Second, From: gate.FromEnv}}},
		{name: "flag over env", retryEnv: "5s", args: []string{"--retry-after", "3s"}, want: gate.Windows{Retry: gate.Window{After: 3 * time.Second, From: gate.FromFlag}}},
		{name: "flag over bad env", idleEnv: "1h", args: []string{"--idle-after", "3s"}, want: gate.Windows{Idle: gate.Window{After: 3 * time.Second, From: gate.FromFlag}}},
		{name: "the contract's exactly", args: []string{"--retry-after", "3m", "--idle-after", "30s"},
			want: gate.Windows{Retry: gate.Window{After: 3 * time.Minute, From: gate.FromFlag}, Idle: gate.Window{After: 30 * time.Second, From: gate.FromFlag}}},
		{name: "retry too long", args: []string{"--retry-after", "3m0.001s"}, usage: true},
		{name: "idle too long", args: []string{"--idle-after", "31s"}, usage: true},
		{name: "zero", args: []string{"--idle-after", "0s"}, usage: true},
		{name: "negative", args: []string{"--retry-after", "-1s"}, usage: true},
		{name: "not a duration", args: []string{"--retry-after", "soon"}, usage: true},
		{name: "env too long", idleEnv: "1m", usage: true},
		{name: "env not a duration", retryEnv: "3", usage: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(envname.RetryAfter, tc.retryEnv)
			t.Setenv(envname.IdleAfter, tc.idleEnv)
			var c common
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			c.register(fs, true)
			err := parse(fs, tc.args)
			var ue *usageError
			if tc.usage != errors.As(err, &ue) || (!tc.usage && err != nil) {
				t.Fatalf("parse(%q) = %v, want usage error %v", tc.args, err, tc.usage)
			}
			if !tc.usage && c.windows != tc.want {
				t.Fatalf("parse(%q) windows %+v, want %+v", tc.args, c.windows, tc.want)
			}
		})
	}
}

// TestCoordinatorWindows: serve's windows are the ones it names, the
// contract's for the rest.
func TestCoordinatorWindows(t *testing.T) {
	got := coordinatorWindows(gate.Windows{Idle: gate.Window{After: time.Second, From: gate.FromEnv}})
	want := gate.Windows{Retry: gate.Window{After: gate.DefaultRetryAfter, From: gate.FromContract}, Idle: gate.Window{After: time.Second, From: gate.FromEnv}}
	if got != want {
		t.Fatalf("coordinatorWindows = %+v, want %+v", got, want)
	}
}
