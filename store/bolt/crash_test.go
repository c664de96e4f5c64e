package bolt_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/bolt"
)

// crashChildEnv, when set to a ledger path, makes the test binary the crash
// test's child: it appends to that ledger until killed, with journal
// segments of the size in crashJournalEnv.
const (
	crashChildEnv   = "LEASEGATE_BOLT_CRASH_CHILD"
	crashJournalEnv = "LEASEGATE_BOLT_CRASH_JOURNAL"
)

const (
	crashNoteWriters = 4
	// crashChildLifetime ends a child whose parent never killed it.
	crashChildLifetime = 30 * time.Second
)

// crashChild appends from several goroutines at once, lease pairs from one
// (so fencing tokens rise with Seq) and notices from the others, and prints
// "first last marker" for every acknowledged Append, one write per line.
func crashChild(path string) int {
	cfg := bolt.DefaultConfig()
	if _, err := fmt.Sscan(os.Getenv(crashJournalEnv), &cfg.JournalSize); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	l, err := bolt.Open(path, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), crashChildLifetime)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { appendPairs(ctx, l) })
	for w := range crashNoteWriters {
		wg.Go(func() { appendNotes(ctx, l, w) })
	}
	wg.Wait()
	return 0
}

func appendPairs(ctx context.Context, l *bolt.Ledger) {
	for tok := uint64(1); ctx.Err() == nil; tok++ {
		ack(l.Append(ctx, pair(tok)...))
	}
}

func appendNotes(ctx context.Context, l *bolt.Ledger, w int) {
	for i := 0; ctx.Err() == nil; i++ {
		ack(l.Append(ctx, gate.Event{Type: gate.EventNotice, At: t0, Actor: "crash", Path: fmt.Sprintf("note/%d/%d", w, i)}))
	}
}

// pair is one acquire+release of its own file, as the benchmarks append.
func pair(tok uint64) []gate.Event {
	id := gate.LeaseID(fmt.Sprintf("01JCRASH%018d", tok))
	l := &gate.Lease{ID: id, Owner: gate.Owner{Name: "worker", PID: 4242}, Kind: gate.KindAuto, State: gate.StateActive,
		Scope: gate.Scope{Type: gate.ScopeFile, Paths: []string{fmt.Sprintf("src/f%d.go", tok)}}, FencingToken: tok, AcquiredAt: t0, LastHeartbeatAt: t0}
	return []gate.Event{
		{Type: gate.EventGranted, At: t0, Actor: "worker", Lease: l, Path: l.Scope.Paths[0]},
		{Type: gate.EventReleased, At: t0, Actor: "worker", LeaseID: id, Reason: "released by holder"},
	}
}

func ack(evs []gate.Event, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "append:", err)
		os.Exit(3)
	}
	os.Stdout.WriteString(fmt.Sprintf("%d %d %s\n", evs[0].Seq, evs[len(evs)-1].Seq, evs[0].Path))
}

type crashAck struct {
	first, last uint64
	marker      string
}

// TestCrashLosesNoAcknowledgedEvent kills -9 a process in the middle of
// appending and checks that every Append it acknowledged is in the ledger
// and that the ledger replays. While the child runs, the ledger is locked
// against this process. With 4 KiB journal segments the kill also lands
// among segment switches and copies into the bbolt file.
func TestCrashLosesNoAcknowledgedEvent(t *testing.T) {
	for _, size := range []int64{bolt.DefaultJournalSize, 4096} {
		t.Run(fmt.Sprintf("journal=%d", size), func(t *testing.T) { crashOnce(t, size) })
	}
}

func crashOnce(t *testing.T, journal int64) {
	path := tempLedgerPath(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path, fmt.Sprintf("%s=%d", crashJournalEnv, journal))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	acks := readAcks(t, lines, 300, &stderr)
	checkLocked(t, path)
	acks = append(acks, readAcks(t, lines, 100, &stderr)...)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	acks = append(acks, readAcks(t, lines, -1, &stderr)...)
	checkKilled(t, cmd.Wait(), &stderr)
	checkAcked(t, mustOpen(t, path, testConfig(t)), acks)
}

// readAcks reads n acknowledgements, or all that are left when n < 0.
func readAcks(t *testing.T, lines *bufio.Scanner, n int, stderr *bytes.Buffer) []crashAck {
	t.Helper()
	var acks []crashAck
	for (n < 0 || len(acks) < n) && lines.Scan() {
		var a crashAck
		if _, err := fmt.Sscanf(lines.Text(), "%d %d %s", &a.first, &a.last, &a.marker); err != nil {
			t.Fatalf("child printed %q: %v", lines.Text(), err)
		}
		acks = append(acks, a)
	}
	if err := lines.Err(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("reading the child's acks: %v", err)
	}
	if n >= 0 && len(acks) < n {
		t.Fatalf("child stopped after %d of %d acks; stderr:\n%s", len(acks), n, stderr)
	}
	return acks
}

func checkLocked(t *testing.T, path string) {
	t.Helper()
	cfg := testConfig(t)
	cfg.LockTimeout = 100 * time.Millisecond
	l, err := bolt.Open(path, cfg)
	if err == nil {
		l.Close()
	}
	if !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open(%q) while the child holds it = %v, want %v naming the path", path, err, store.ErrLocked)
	}
}

// checkAcked checks that every acknowledged Append is stored, marker and
// all, and that the ledger replays into a lease table.
func checkAcked(t *testing.T, l *bolt.Ledger, acks []crashAck) {
	t.Helper()
	table := gate.NewTable()
	paths := make(map[uint64]string)
	if err := l.Replay(context.Background(), 0, func(e gate.Event) error {
		paths[e.Seq] = e.Path
		return table.Apply(e)
	}); err != nil {
		t.Fatalf("Replay(0) after kill -9 = %v", err)
	}
	for _, a := range acks {
		if a.last > l.LastSeq() || paths[a.first] != a.marker {
			t.Fatalf("acknowledged Append %d..%d (%s) lost: LastSeq() = %d, stored path %q", a.first, a.last, a.marker, l.LastSeq(), paths[a.first])
		}
	}
	t.Logf("%d acknowledged appends survived kill -9; ledger has %d events, %d leases", len(acks), l.LastSeq(), table.Len())
}
