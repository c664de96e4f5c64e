package liveness_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
)

func TestContractDefaults(t *testing.T) {
	if liveness.DefaultHeartbeatInterval != 2*time.Second {
		t.Errorf("DefaultHeartbeatInterval = %v, want 2s", liveness.DefaultHeartbeatInterval)
	}
	if liveness.DefaultTTL != 10*time.Second {
		t.Errorf("DefaultTTL = %v, want 10s", liveness.DefaultTTL)
	}
	cfg := liveness.DefaultConfig()
	if cfg.TTL != liveness.DefaultTTL || cfg.HeartbeatInterval != liveness.DefaultHeartbeatInterval {
		t.Errorf("DefaultConfig() = %+v, want ttl %v and interval %v", cfg, liveness.DefaultTTL, liveness.DefaultHeartbeatInterval)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("DefaultConfig().Validate() = %v, want nil", err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*liveness.Config)
		ok   bool
	}{
		{name: "defaults", edit: func(*liveness.Config) {}, ok: true},
		{name: "ttl of three beats", edit: func(c *liveness.Config) { c.TTL = 6 * time.Second }, ok: true},
		{name: "ttl just under three beats", edit: func(c *liveness.Config) { c.TTL = 6*time.Second - time.Nanosecond }},
		{name: "ttl of one beat", edit: func(c *liveness.Config) { c.TTL = 2 * time.Second }},
		{name: "zero ttl means the default", edit: func(c *liveness.Config) { c.TTL = 0 }, ok: true},
		{name: "zero interval means the default", edit: func(c *liveness.Config) { c.HeartbeatInterval = 0 }, ok: true},
		{name: "zero config", edit: func(c *liveness.Config) { *c = liveness.Config{} }, ok: true},
		{name: "zero ttl, long interval", edit: func(c *liveness.Config) { c.TTL, c.HeartbeatInterval = 0, 4*time.Second }},
		{name: "negative ttl", edit: func(c *liveness.Config) { c.TTL = -time.Second }},
		{name: "negative interval", edit: func(c *liveness.Config) { c.HeartbeatInterval = -time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := liveness.DefaultConfig()
			tt.edit(&cfg)
			err := cfg.Validate()
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, liveness.ErrInvalidConfig)) {
				t.Fatalf("Validate(%+v) = %v, want ok %v (errors wrap ErrInvalidConfig)", cfg, err, tt.ok)
			}
			if _, err := liveness.New(cfg); tt.ok != (err == nil) {
				t.Errorf("New(%+v) = %v, want ok %v", cfg, err, tt.ok)
			}
		})
	}
}

func TestNewDefaultsHost(t *testing.T) {
	want, err := os.Hostname()
	if err != nil {
		t.Skipf("os.Hostname: %v", err)
	}
	e, err := liveness.New(liveness.DefaultConfig())
	if err != nil {
		t.Fatalf("New(DefaultConfig()) = %v", err)
	}
	if e.Host() != want {
		t.Errorf("New(DefaultConfig()).Host() = %q, want %q", e.Host(), want)
	}
}

// TestZeroConfigUsesDefaults checks that a Config literal that sets
// nothing judges heartbeats by DefaultTTL.
func TestZeroConfigUsesDefaults(t *testing.T) {
	e, err := liveness.New(liveness.Config{Host: here})
	if err != nil {
		t.Fatalf("New(Config{}) = %v", err)
	}
	owner := gate.Owner{Name: "bob", Host: "host-b"}
	for age, want := range map[time.Duration]gate.LivenessStatus{
		liveness.DefaultTTL:                   gate.Alive,
		liveness.DefaultTTL + time.Nanosecond: gate.Dead,
	} {
		if got := e.Evaluate(liveness.Subject{Owner: owner, LastHeartbeat: now.Add(-age)}, now); got.Status != want {
			t.Errorf("Evaluate(heartbeat age %v) with Config{} = %v, want %v", age, got, want)
		}
	}
}
