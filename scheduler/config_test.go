package scheduler_test

import (
	"errors"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/scheduler"
)

// TestContractDefaults pins the contract's numbers: retry after 180 s and
// stop-idle after 30 s (the lease model's windows), a sweep every minute,
// a reminder 2 h before expiry (the lease model's own constant).
func TestContractDefaults(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want time.Duration
	}{
		{"gate.DefaultRetryAfter", gate.DefaultRetryAfter, 180 * time.Second},
		{"gate.DefaultIdleAfter", gate.DefaultIdleAfter, 30 * time.Second},
		{"DefaultSweepEvery", scheduler.DefaultSweepEvery, time.Minute},
		{"DefaultRemindBefore", scheduler.DefaultRemindBefore, 2 * time.Hour},
		{"DefaultRemindBefore vs gate", scheduler.DefaultRemindBefore, gate.DefaultRemindBefore},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %s, want %s", tc.name, tc.got, tc.want)
		}
	}
	cfg := scheduler.DefaultConfig()
	want := scheduler.Config{SweepEvery: time.Minute, RemindBefore: 2 * time.Hour}
	if cfg != want {
		t.Errorf("DefaultConfig() = %+v, want %+v", cfg, want)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*scheduler.Config)
		valid bool
	}{
		{name: "defaults", edit: func(*scheduler.Config) {}, valid: true},
		{name: "zero sweep-every", edit: func(c *scheduler.Config) { c.SweepEvery = 0 }},
		{name: "negative remind-before", edit: func(c *scheduler.Config) { c.RemindBefore = -time.Hour }},
		{name: "zero config", edit: func(c *scheduler.Config) { *c = scheduler.Config{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := scheduler.DefaultConfig()
			tc.edit(&cfg)
			err := cfg.Validate()
			if tc.valid != (err == nil) {
				t.Fatalf("Validate(%+v) = %v, want valid %v", cfg, err, tc.valid)
			}
			if err != nil && !errors.Is(err, scheduler.ErrInvalidConfig) {
				t.Fatalf("Validate(%+v) = %v, want it to wrap ErrInvalidConfig", cfg, err)
			}
			s, err := scheduler.New(cfg)
			if tc.valid != (err == nil) || (err != nil && !errors.Is(err, scheduler.ErrInvalidConfig)) {
				t.Fatalf("New(%+v) = %v, %v, want valid %v", cfg, s, err, tc.valid)
			}
		})
	}
}
