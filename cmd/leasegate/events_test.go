package main

import (
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
)

// TestStreamCut: a cut stream says its cause and follows on from the last
// event seen, or from where the shared ledger ends when it went back since
// the follow began, also when its seqs have climbed past the last seen
// again (the events numbered up to it were skipped).
func TestStreamCut(t *testing.T) {
	since := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		st       leasegate.Status
		wantWhy  string
		wantFrom uint64
	}{
		{name: "etcd unreachable", st: leasegate.Status{LastSeq: 9, LedgerWarning: "etcd at [x] unreachable"}, wantWhy: "etcd at [x] unreachable", wantFrom: 9},
		{name: "went back below", st: leasegate.Status{LastSeq: 3}, wantWhy: "went back from seq 9 to seq 3", wantFrom: 3},
		{name: "went back and climbed past", st: leasegate.Status{LastSeq: 12, WentBack: &leasegate.WentBack{At: since.Add(time.Second), Seen: 9, Ends: 4}},
			wantWhy: "it ends at seq 4, seq 9 had been read", wantFrom: 4},
		{name: "went back before the follow", st: leasegate.Status{LastSeq: 12, WentBack: &leasegate.WentBack{At: since.Add(-time.Second), Seen: 5, Ends: 2}},
			wantWhy: "fell behind", wantFrom: 9},
	} {
		t.Run(tt.name, func(t *testing.T) {
			why, from := streamCut("/ws", tt.st, 9, since)
			if !strings.Contains(why, tt.wantWhy) || from != tt.wantFrom {
				t.Errorf("streamCut(last 9) = %q, %d; want %q, %d", why, from, tt.wantWhy, tt.wantFrom)
			}
		})
	}
}
