package main

import (
	"testing"

	"github.com/leasegate/leasegate/api"
)

// TestConnBudget: the coordinator's connections fit in its open-files
// limit with its own files' share (at least 32, a quarter of the rest)
// and the watcher's kept out; a large or unknown limit leaves the cap.
func TestConnBudget(t *testing.T) {
	tests := []struct {
		limit    uint64
		watching int
		want     int
	}{
		{limit: 0, watching: -1, want: api.MaxConns},
		{limit: 1 << 20, watching: -1, want: api.MaxConns},
		{limit: 1024, watching: -1, want: 768},
		{limit: 1024, watching: 512, want: 384},
		{limit: 256, watching: 128, want: 96},
		{limit: 64, watching: -1, want: 32},
		{limit: 16, watching: -1, want: 0},
	}
	for _, tt := range tests {
		if got := connBudget(tt.limit, tt.watching); got != tt.want {
			t.Errorf("connBudget(%d, %d) = %d, want %d", tt.limit, tt.watching, got, tt.want)
		}
	}
}

// TestPidfdBudget: the coordinator's pidfds get what its connections, the
// watcher and its own files leave of the open-files limit (none under 64,
// 32 of 256 beside its 192 connections); an unknown limit leaves them
// without one.
func TestPidfdBudget(t *testing.T) {
	tests := []struct {
		limit    uint64
		watching int
		want     int
	}{
		{limit: 0, watching: -1, want: -1},
		{limit: 1 << 20, watching: -1, want: 1<<20 - api.MaxConns - ownFiles},
		{limit: 1024, watching: -1, want: 224},
		{limit: 256, watching: -1, want: 32},
		{limit: 256, watching: 128, want: 0},
		{limit: 132, watching: -1, want: 1},
		{limit: 64, watching: -1, want: 0},
		{limit: 16, watching: -1, want: 0},
	}
	for _, tt := range tests {
		if got := pidfdBudget(tt.limit, tt.watching); got != tt.want {
			t.Errorf("pidfdBudget(%d, %d) = %d, want %d", tt.limit, tt.watching, got, tt.want)
		}
	}
}
