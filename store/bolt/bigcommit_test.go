//go:build linux

package bolt_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/disktest"
	"github.com/leasegate/leasegate/store/bolt"
)

// releases returns n releases of alice's auto leases, as a worker's exit
// writes them in one Append (about 170 bytes each in the journal).
func releases(n int) []gate.Event {
	evs := make([]gate.Event, n)
	for i := range evs {
		evs[i] = gate.Event{Type: gate.EventReleased, At: t0, Actor: "alice", LeaseID: gate.LeaseID(fmt.Sprintf("01JDZ3K7V2W5M8Q9R4T6X%05d", i)), Reason: "worker exited", Path: fmt.Sprintf("f%d.txt", i)}
	}
	return evs
}

// TestFullDiskRefusesCommitLargerThanItsRoom: one Append larger than a
// journal segment (8,000 releases, about 1.4 MB against 1 MiB) must grow
// the segment. On a full disk (a real ENOSPC on a tmpfs) MakeRoom refuses
// it with the cause before anything is written, and the ledger goes on
// committing what fits; once space returns MakeRoom grows the segment and
// the Append commits whole; a reopen has every acknowledged event.
func TestFullDiskRefusesCommitLargerThanItsRoom(t *testing.T) {
	dir := disktest.Small(t, t.TempDir(), "8m")
	path := filepath.Join(dir, "ledger.db")
	cfg := testConfig(t)
	l := mustOpen(t, path, cfg)
	ctx := context.Background()
	if _, err := l.Append(ctx, marked("before", 100)...); err != nil {
		t.Fatal(err)
	}
	filler := disktest.Fill(t, dir)
	big := releases(8000)
	if err := l.MakeRoom(big...); err == nil {
		_, err = l.Append(ctx, big...)
		t.Fatalf("MakeRoom for %d events on a full disk = nil (then Append = %v), want ENOSPC", len(big), err)
	} else if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("MakeRoom for %d events on a full disk = %v, want ENOSPC", len(big), err)
	}
	if err := l.MakeRoom(marked("small", 1)...); err != nil {
		t.Fatalf("MakeRoom for one event on a full disk = %v", err)
	}
	if _, err := l.Append(ctx, marked("small", 1)...); err != nil {
		t.Fatalf("Append of one event after a refused large one = %v", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := l.MakeRoom(big...); err != nil {
		t.Fatalf("MakeRoom for %d events with space = %v", len(big), err)
	}
	if _, err := l.Append(ctx, big...); err != nil {
		t.Fatalf("Append of %d events = %v", len(big), err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	want := 100 + 1 + len(big)
	if got, last := storedPathsWith(t, path, cfg); len(got) != want || last != uint64(want) {
		t.Fatalf("after reopen %d events, LastSeq() %d; want every one of the %d acknowledged", len(got), last, want)
	}
	for i := range 2 {
		if fi, err := os.Stat(bolt.SegmentPath(path, i)); err == nil {
			t.Logf("segment %d: %d bytes", i, fi.Size())
		}
	}
}

// TestRefusedRoomGivesSpaceBack: a commit larger than its segment's room
// that the disk cannot take leaves the segment as it was. A grow that
// fails part way must not keep the zeros it wrote: the commit is retried
// (a dead owner's reclaim, every liveness round) and each try would take
// whatever space was freed, space the copy into the bbolt file needs to
// recover the ledger.
func TestRefusedRoomGivesSpaceBack(t *testing.T) {
	dir := disktest.Small(t, t.TempDir(), "8m")
	path := filepath.Join(dir, "ledger.db")
	l := mustOpen(t, path, testConfig(t))
	spare := filepath.Join(dir, "spare")
	if err := os.WriteFile(spare, make([]byte, 256<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	disktest.Fill(t, dir)
	if err := os.Remove(spare); err != nil {
		t.Fatal(err)
	}
	seg := bolt.SegmentPath(path, 0)
	before := mustSize(t, seg)
	big := releases(8000)
	if err := l.MakeRoom(big...); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("MakeRoom for %d events with 256 KiB free = %v, want ENOSPC", len(big), err)
	}
	if after := mustSize(t, seg); after != before {
		t.Fatalf("segment 0 after a refused MakeRoom: %d bytes, want %d as before (the zeros written took the free space)", after, before)
	}
	if err := os.WriteFile(spare, make([]byte, 128<<10), 0o600); err != nil {
		t.Fatalf("writing 128 KiB of the 256 KiB freed before the refused MakeRoom: %v", err)
	}
}

func mustSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
