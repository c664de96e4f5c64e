//go:build linux

package bolt_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/internal/disktest"
	"github.com/leasegate/leasegate/store/bolt"
)

// TestFullDiskDegrades: on a full disk (a real ENOSPC on a tmpfs), the
// copy of a sealed journal segment into the bbolt file fails; the ledger
// says so at once (Degraded, HealthChanged) and keeps committing into the
// active segment's room (Headroom) without needing space; once space
// returns the copy succeeds by itself; and a reopen has every
// acknowledged event.
func TestFullDiskDegrades(t *testing.T) {
	dir := disktest.Small(t, t.TempDir(), "4m")
	path := filepath.Join(dir, "ledger.db")
	cfg := testConfig(t)
	cfg.JournalSize = 64 << 10
	cfg.CopyRetry = 20 * time.Millisecond
	l := mustOpen(t, path, cfg)
	changed := l.HealthChanged()
	filler := disktest.Fill(t, dir)
	ctx := context.Background()
	acked := 0
	for l.Degraded() == nil {
		if l.Headroom() < 8<<10 { // the copy is still running: wait for its outcome
			select {
			case <-changed:
			case <-time.After(30 * time.Second):
				t.Fatal("the copy of a full segment had no outcome within 30 s")
			}
			continue
		}
		if _, err := l.Append(ctx, marked("full", 1)...); err != nil {
			t.Fatalf("Append %d on a full disk with %d bytes of room = %v", acked+1, l.Headroom(), err)
		}
		if acked++; acked > 5000 {
			t.Fatal("no segment copy failed after 5,000 events on a full disk")
		}
	}
	if !errors.Is(l.Degraded(), syscall.ENOSPC) {
		t.Fatalf("Degraded() = %v, want ENOSPC", l.Degraded())
	}
	// A writer that keeps a reserve commits as long as the room lasts.
	for l.Headroom() > 8<<10 {
		if _, err := l.Append(ctx, marked("degraded", 1)...); err != nil {
			t.Fatalf("Append %d while degraded, %d bytes of room = %v", acked+1, l.Headroom(), err)
		}
		acked++
	}
	changed = l.HealthChanged()
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("the ledger did not recover within 30 s of space returning")
	}
	if err := l.Degraded(); err != nil {
		t.Fatalf("Degraded() after space returned = %v", err)
	}
	if _, err := l.Append(ctx, marked("after", 1)...); err != nil {
		t.Fatalf("Append after recovery = %v", err)
	}
	acked++
	if err := l.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if got, last := storedPathsWith(t, path, cfg); len(got) != acked || last != uint64(acked) {
		t.Fatalf("after reopen %d events, LastSeq() %d; want every one of the %d acknowledged", len(got), last, acked)
	}
}

// TestFullDiskRestart: a coordinator stopped (or killed) while the ledger
// is degraded leaves its acknowledged events in the journal; opening it
// while the disk is still full fails with the cause, and once space
// returns it opens with every one of them.
func TestFullDiskRestart(t *testing.T) {
	dir := disktest.Small(t, t.TempDir(), "4m")
	path := filepath.Join(dir, "ledger.db")
	cfg := testConfig(t)
	cfg.JournalSize = 64 << 10
	cfg.CopyRetry = 20 * time.Millisecond
	l := mustOpen(t, path, cfg)
	filler := disktest.Fill(t, dir)
	acked := 0
	for l.Headroom() > 8<<10 {
		if _, err := l.Append(context.Background(), marked("full", 1)...); err != nil {
			t.Fatalf("Append %d = %v", acked+1, err)
		}
		acked++
	}
	if l.Degraded() == nil {
		select {
		case <-l.HealthChanged():
		case <-time.After(30 * time.Second):
			t.Fatal("the copy of a full segment on a full disk did not fail within 30 s")
		}
	}
	if err := l.Close(); err == nil {
		t.Error("Close() of a degraded ledger = nil, want the copy's failure")
	}
	if l2, err := bolt.Open(path, cfg); err == nil {
		l2.Close()
		t.Fatal("Open on a full disk with events to copy succeeded")
	} else if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Open on a full disk = %v, want ENOSPC", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if got, last := storedPathsWith(t, path, cfg); len(got) != acked || last != uint64(acked) {
		t.Fatalf("after space returned %d events, LastSeq() %d; want every one of the %d acknowledged", len(got), last, acked)
	}
}

// TestOpenOnTooSmallADiskSaysWhatItNeeds: on a file system smaller than
// the journal's two segments (a 1 MiB tmpfs, segments of 512 KiB), Open
// fails with ENOSPC and says what the ledger needs, so that an empty
// disk is not taken for a full one; the segment it could fill is cut
// back, leaving the space to whatever frees the rest.
func TestOpenOnTooSmallADiskSaysWhatItNeeds(t *testing.T) {
	dir := disktest.Small(t, t.TempDir(), "1m")
	cfg := testConfig(t)
	cfg.JournalSize = 512 << 10
	l, err := bolt.Open(filepath.Join(dir, "ledger.db"), cfg)
	if err == nil {
		l.Close()
		t.Fatal("Open with 1 MiB of journal on a 1 MiB file system succeeded")
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Open = %v, want ENOSPC", err)
	}
	if want := "2 journal segments of 512 KiB, 1 MiB in all"; !strings.Contains(err.Error(), want) {
		t.Fatalf("Open = %v, want it to say %q", err, want)
	}
	for i := range 2 {
		if fi, err := os.Stat(bolt.SegmentPath(filepath.Join(dir, "ledger.db"), i)); err == nil && fi.Size() != 0 {
			t.Errorf("journal segment %d left %d bytes of zeros on the full disk after the failed Open", i, fi.Size())
		}
	}
}
