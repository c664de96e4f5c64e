package coordinator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/coordinator"
)

// TestDefaultConfig: the windows are the contract's, exactly.
func TestDefaultConfig(t *testing.T) {
	cfg := coordinator.DefaultConfig()
	tests := []struct {
		name      string
		got, want time.Duration
	}{
		{name: "Windows.Retry", got: cfg.Windows.Retry.After, want: 180 * time.Second},
		{name: "Windows.Idle", got: cfg.Windows.Idle.After, want: 30 * time.Second},
		{name: "LivenessEvery", got: cfg.LivenessEvery, want: 500 * time.Millisecond},
		{name: "PruneAfter", got: cfg.PruneAfter, want: 24 * time.Hour},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("DefaultConfig().%s = %s, want %s", tt.name, tt.got, tt.want)
		}
	}
	if cfg.KeepEnded != 10_000 {
		t.Errorf("DefaultConfig().KeepEnded = %d, want 10000", cfg.KeepEnded)
	}
}

// TestConfigValidate: a config without a ledger or prober, or with a
// window that is not positive, is refused, and Open refuses it too.
func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*coordinator.Config)
		want string
	}{
		{name: "no ledger", edit: func(c *coordinator.Config) { c.Ledger = nil }, want: "ledger is required"},
		{name: "no prober", edit: func(c *coordinator.Config) { c.Liveness = nil }, want: "liveness prober is required"},
		{name: "zero retry", edit: func(c *coordinator.Config) { c.Windows.Retry.After = 0 }, want: "retry-after 0s: must be positive"},
		{name: "negative idle", edit: func(c *coordinator.Config) { c.Windows.Idle.After = -time.Second }, want: "idle-after -1s: must be positive"},
		{name: "long retry", edit: func(c *coordinator.Config) { c.Windows.Retry.After = 181 * time.Second }, want: "retry-after 3m1s: longer than the contract's 3m0s"},
		{name: "long idle", edit: func(c *coordinator.Config) { c.Windows.Idle.After = time.Minute }, want: "idle-after 1m0s: longer than the contract's 30s"},
		{name: "keep no ended", edit: func(c *coordinator.Config) { c.KeepEnded = 0 }, want: "keep-ended must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := coordinator.DefaultConfig()
			cfg.Ledger, cfg.Liveness = failingLedger{}, newFakeProber()
			tt.edit(&cfg)
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want %q", err, tt.want)
			}
			if _, err := coordinator.Open(context.Background(), cfg); err == nil {
				t.Fatal("Open() with an invalid config succeeded")
			}
		})
	}
}
