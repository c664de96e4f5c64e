//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/intercept/seccomp"
)

func TestConfigValidate(t *testing.T) {
	valid := func() seccomp.Config {
		c := seccomp.DefaultConfig()
		c.Argv = []string{"true"}
		c.Decider = intercept.AllowAll
		return c
	}
	tests := []struct {
		name   string
		modify func(*seccomp.Config)
		ok     bool
	}{
		{name: "defaults", modify: func(*seccomp.Config) {}, ok: true},
		{name: "zero durations take defaults", modify: func(c *seccomp.Config) { c.ValidityPoll, c.StallAfter, c.HandshakeTimeout = 0, 0, 0 }, ok: true},
		{name: "no argv", modify: func(c *seccomp.Config) { c.Argv = nil }},
		{name: "empty command", modify: func(c *seccomp.Config) { c.Argv = []string{""} }},
		{name: "no decider", modify: func(c *seccomp.Config) { c.Decider = nil }},
		{name: "negative poll", modify: func(c *seccomp.Config) { c.ValidityPoll = -time.Second }},
		{name: "negative stall", modify: func(c *seccomp.Config) { c.StallAfter = -time.Second }},
		{name: "negative handshake", modify: func(c *seccomp.Config) { c.HandshakeTimeout = -time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			tt.modify(&c)
			err := c.Validate()
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, seccomp.ErrInvalidConfig)) {
				t.Errorf("Validate() = %v, want ok=%v or ErrInvalidConfig", err, tt.ok)
			}
			if _, err := seccomp.Start(context.Background(), c); !tt.ok && !errors.Is(err, seccomp.ErrInvalidConfig) {
				t.Errorf("Start() = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

// TestSentinelsNameTheFallback: the feature errors tell the user what to
// use instead.
func TestSentinelsNameTheFallback(t *testing.T) {
	for _, err := range []error{seccomp.ErrNoUserNotif, seccomp.ErrNoWaitKillable, seccomp.ErrUnsupported} {
		if got := err.Error(); !strings.Contains(got, seccomp.Fallback) {
			t.Errorf("%q does not name the fallback %q", got, seccomp.Fallback)
		}
	}
}
