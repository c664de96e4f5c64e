package main

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "0", want: 0},
		{in: "1048576", want: 1 << 20},
		{in: "512KiB", want: 512 << 10},
		{in: "48MiB", want: 48 << 20},
		{in: "2GiB", want: 2 << 30},
		{in: "10B", want: 10},
		{in: "", bad: true},
		{in: "48MB", bad: true},
		{in: "-1MiB", bad: true},
		{in: "1.5GiB", bad: true},
		{in: "9999999999GiB", bad: true},
	}
	for _, tt := range tests {
		got, err := parseBytes(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("parseBytes(%q) = %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseBytes(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestApplyMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	tests := []struct {
		flag, env string
		want      int64
	}{
		{"", "", defaultMemoryLimit},
		{"", "100MiB", 7}, // GOMEMLIMIT set: the runtime's value stays
		{"64MiB", "", 64 << 20},
		{"64MiB", "100MiB", 64 << 20},
		{"0", "", math.MaxInt64},
	}
	for _, tt := range tests {
		debug.SetMemoryLimit(7)
		if err := applyMemoryLimit(tt.flag, tt.env); err != nil {
			t.Fatalf("applyMemoryLimit(%q, %q): %v", tt.flag, tt.env, err)
		}
		if got := debug.SetMemoryLimit(-1); got != tt.want {
			t.Errorf("applyMemoryLimit(%q, %q) left the limit at %d, want %d", tt.flag, tt.env, got, tt.want)
		}
	}
	if err := applyMemoryLimit("lots", ""); err == nil {
		t.Error(`applyMemoryLimit("lots") succeeded, want an error naming the flag`)
	}
}

func TestTuneMCPCollector(t *testing.T) {
	prevGC, prevLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(prevGC); debug.SetMemoryLimit(prevLimit) })
	tests := []struct {
		gogc, limit         string
		wantGC, wantLimitMB int64
	}{
		{"", "", mcpGCPercent, mcpMemoryLimit >> 20},
		{"50", "", 7, mcpMemoryLimit >> 20}, // GOGC set: the runtime's value stays
		{"", "1GiB", mcpGCPercent, 7},
		{"50", "1GiB", 7, 7},
	}
	for _, tt := range tests {
		debug.SetGCPercent(7)
		debug.SetMemoryLimit(7 << 20)
		tuneMCPCollector(tt.gogc, tt.limit)
		if gc, limit := int64(debug.SetGCPercent(100)), debug.SetMemoryLimit(-1)>>20; gc != tt.wantGC || limit != tt.wantLimitMB {
			t.Errorf("tuneMCPCollector(%q, %q) left GOGC %d and a limit of %d MiB, want %d and %d MiB", tt.gogc, tt.limit, gc, limit, tt.wantGC, tt.wantLimitMB)
		}
	}
}
