package bolt_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/bolt"
)

// crashCopy appends n single-event calls to a new ledger and copies its
// files while it is still open, as a crash would leave them: every event
// acknowledged, all of them only in the journal. It returns the copy's
// path and the offset of each call's record in segment 0.
func crashCopy(t *testing.T, n int) (string, []int64) {
	t.Helper()
	l := mustOpen(t, tempLedgerPath(t), testConfig(t))
	var offs []int64
	var off int64
	for i := range n {
		evs, err := l.Append(context.Background(), marked("c", n)[i])
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, off)
		off += int64(len(bolt.Frame(evs, evs[0].Seq)))
	}
	dst := tempLedgerPath(t)
	for _, name := range []string{l.Path(), bolt.SegmentPath(l.Path(), 0), bolt.SegmentPath(l.Path(), 1)} {
		copyFile(t, name, filepath.Join(filepath.Dir(dst), filepath.Base(name)))
	}
	return dst, offs
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
}

// flipByte flips one byte of a file.
func flipByte(t *testing.T, name string, off int64) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := []byte{0}
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x20
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// filesOf reads the ledger at path and its journal, missing files as nil.
func filesOf(t *testing.T, path string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, name := range []string{path, bolt.SegmentPath(path, 0), bolt.SegmentPath(path, 1)} {
		b, err := os.ReadFile(name)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// mustRefuse opens the ledger at path, wants a *bolt.CorruptError naming
// file, and checks that no file changed.
func mustRefuse(t *testing.T, path, file string, seq uint64) *bolt.CorruptError {
	t.Helper()
	before := filesOf(t, path)
	l, err := bolt.Open(path, testConfig(t))
	if err == nil {
		l.Close()
		t.Fatalf("Open of a damaged ledger succeeded with LastSeq() %d, want a *bolt.CorruptError", l.LastSeq())
	}
	var ce *bolt.CorruptError
	if !errors.As(err, &ce) || !errors.Is(err, store.ErrCorrupt) || ce.File != file || ce.Seq != seq {
		t.Fatalf("Open = %v, want a *bolt.CorruptError for %s at event %d", err, file, seq)
	}
	for i, after := range filesOf(t, path) {
		if !bytes.Equal(after, before[i]) {
			t.Errorf("file %d changed by the refused Open (%d bytes, was %d)", i, len(after), len(before[i]))
		}
	}
	return ce
}

// TestJournalDamageRefused: a byte flipped in an acknowledged journal
// record that later records follow is damage, not a torn tail: Open
// refuses, naming the segment, the offset and the first lost event, and
// keeps every file as it was. Only the last record, which a torn write
// cannot be told from, is dropped.
func TestJournalDamageRefused(t *testing.T) {
	for _, rec := range []int{0, 9, 18} {
		path, offs := crashCopy(t, 20)
		flipByte(t, bolt.SegmentPath(path, 0), offs[rec]+30)
		ce := mustRefuse(t, path, bolt.SegmentPath(path, 0), uint64(rec+1))
		if ce.Offset != offs[rec] || !strings.Contains(ce.Error(), "follows") {
			t.Errorf("record %d damaged: %v, want offset %d and the record that follows", rec, ce, offs[rec])
		}
	}
	path, offs := crashCopy(t, 20)
	flipByte(t, bolt.SegmentPath(path, 0), offs[19]+30)
	if got, last := storedPaths(t, path); len(got) != 19 || last != 19 {
		t.Fatalf("last record torn: %d events, LastSeq() %d; want 19", len(got), last)
	}
}

// TestJournalLengthDamageRefused: a damaged record length (the record
// cannot even be skipped) is found as well.
func TestJournalLengthDamageRefused(t *testing.T) {
	path, offs := crashCopy(t, 20)
	f, err := os.OpenFile(bolt.SegmentPath(path, 0), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(binary.BigEndian.AppendUint32(nil, 1<<30), offs[4]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	mustRefuse(t, path, bolt.SegmentPath(path, 0), 5)
}

// TestMissingFileKeepsJournal: a removed (or emptied) ledger file whose
// journal holds events is refused, not started over: the journal is the
// only copy of those events, and nothing is created or removed.
func TestMissingFileKeepsJournal(t *testing.T) {
	crashed, _ := crashCopy(t, 20)
	closed := threeEvents(t)
	for _, path := range []string{crashed, closed} {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		mustRefuse(t, path, path, 1)
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("refused Open created %s (%v)", path, err)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		mustRefuse(t, path, path, 1)
	}
}

// TestTruncatedFileRefused: a bbolt file cut short, which bbolt would map
// and fault on (SIGBUS), is refused with the file's size and what its
// meta page says; so is one whose meta pages are gone.
func TestTruncatedFileRefused(t *testing.T) {
	path := tempLedgerPath(t)
	l := mustOpen(t, path, testConfig(t))
	for i := range 10 {
		if _, err := l.Append(context.Background(), marked(strings.Repeat("x", 100)+string(rune('a'+i)), 50)...); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{12 << 10, 5000} {
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		ce := mustRefuse(t, path, path, 0)
		t.Logf("truncated to %d: %v", size, ce)
	}
	if err := os.WriteFile(path, make([]byte, 64<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRefuse(t, path, path, 0)
}

// TestDamagedPageRefused: a bbolt page that is not what the tree says
// (here every page header after the meta pages names another page), which
// bbolt trips on in a goroutine of its own at Open, is refused with the
// file and offset instead of crashing every start.
func TestDamagedPageRefused(t *testing.T) {
	path := threeEvents(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	for off := 2 * page; off+8 <= len(b); off += page {
		binary.NativeEndian.PutUint64(b[off:], 0xdeadbeef)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ce := mustRefuse(t, path, path, 0)
	if !strings.Contains(ce.Cause, "page tree") {
		t.Fatalf("Open of a damaged page = %v, want the page tree named", ce)
	}
	if s, err := bolt.ReadAll(path); err != nil || len(s.Damage) == 0 {
		t.Fatalf("ReadAll of a damaged page = %+v, %v; want damage reported", s, err)
	}
}
