package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store/bolt"
	"github.com/leasegate/leasegate/workspace"
)

// cmdLedger inspects or rebuilds a stopped coordinator's ledger files, or
// inspects the shared ledger on etcd when leasegate.json or
// LEASEGATE_CLUSTER names a cluster.
func cmdLedger(ctx context.Context, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		args = []string{"check", "--help"}
	}
	if len(args) == 0 || (args[0] != "check" && args[0] != "recover") {
		return usagef("ledger: want `ledger check` or `ledger recover`")
	}
	var f common
	fs := flag.NewFlagSet("ledger "+args[0], flag.ContinueOnError)
	f.register(fs, false)
	startsNothing(fs)
	if rest, err := parseMixed(fs, args[1:]); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("ledger %s: unexpected argument %q", args[0], rest[0])
	}
	ws, err := f.workspace()
	if err != nil {
		return err
	}
	if ws.Config.Cluster != nil {
		return ledgerShared(ctx, f, args[0], ws)
	}
	// Another user's ledger is that user's to read, and to replace: files
	// recover made as root would lock its user out (EnsureStateDir).
	if err := ws.CheckStateOwner(); err != nil {
		return fmt.Errorf("ledger %s: %w", args[0], err)
	}
	if args[0] == "recover" {
		if err := ws.EnsureStateDir(); err != nil {
			return fmt.Errorf("ledger %s: %w", args[0], err)
		}
	}
	// No state directory: no coordinator ever made a ledger here, and
	// one would start on a new one. Nothing is read, so none is locked.
	if _, err := os.Stat(ws.StateDir); args[0] == "check" && errors.Is(err, os.ErrNotExist) {
		return ledgerCheck(f, ws.LedgerPath(), &bolt.Salvage{})
	}
	// The serve lock keeps a coordinator from starting on the files
	// while they are read or replaced.
	lock, err := ws.LockServe()
	var serving *workspace.ServingError
	if errors.As(err, &serving) {
		return fmt.Errorf("ledger %s: stop the coordinator first: %w", args[0], servingHere(ctx, ws, serving))
	} else if err != nil {
		return fmt.Errorf("ledger %s: %w", args[0], err)
	}
	defer lock.Close()
	s, err := bolt.ReadAll(ws.LedgerPath())
	if err != nil {
		return fmt.Errorf("ledger %s: %w", args[0], err)
	}
	if args[0] == "check" {
		return ledgerCheck(f, ws.LedgerPath(), s)
	}
	return ledgerRecover(f, ws.LedgerPath(), s)
}

// checkReport is what `ledger check --json` prints.
type checkReport struct {
	Readable   int          `json:"readable_events"`
	FileEvents int          `json:"file_events"`
	FileLast   uint64       `json:"file_last_seq"`
	Segments   []segmentRun `json:"journal_segments"`
	Missing    [][2]uint64  `json:"missing_seqs"`
	Damage     []string     `json:"damage"` // as a ledger on etcd reports it
	Torn       string       `json:"torn_tail,omitempty"`
}

// segmentRun is what a journal segment holds from its start, with the
// keys of the JSON output's other fields.
type segmentRun struct {
	File  string `json:"file"`
	First uint64 `json:"first_seq"` // 0 when no record is readable
	Last  uint64 `json:"last_seq"`
	End   int64  `json:"end"` // the byte where its readable records end
}

// newCheckReport is what s says of a ledger. Its lists are empty, never
// nil, so that the JSON a script reads has [] for none, as every
// command's --json has.
func newCheckReport(s *bolt.Salvage) checkReport {
	r := checkReport{Readable: len(s.Events), FileEvents: s.FileEvents, FileLast: s.FileLast,
		Segments: []segmentRun{}, Missing: append([][2]uint64{}, s.Missing()...), Damage: []string{}}
	for _, seg := range s.Segments {
		r.Segments = append(r.Segments, segmentRun{File: seg.File, First: seg.First, Last: seg.Last, End: seg.End})
	}
	for _, d := range s.Damage {
		r.Damage = append(r.Damage, d.Error())
	}
	if s.Torn != nil {
		r.Torn = s.Torn.Error()
	}
	return r
}

// ledgerCheck prints what is readable and where reading breaks; it exits
// 1 when a coordinator would refuse the ledger.
func ledgerCheck(f common, path string, s *bolt.Salvage) error {
	r := newCheckReport(s)
	if f.jsonOut {
		if err := printJSON(r); err != nil {
			return err
		}
	} else {
		printCheck(path, r)
	}
	if len(s.Damage) > 0 {
		return &exitStatus{code: exitError}
	}
	return nil
}

func printCheck(path string, r checkReport) {
	fmt.Printf("%s: %d events readable (the bbolt file: %d, up to event %d)\n", path, r.Readable, r.FileEvents, r.FileLast)
	for _, seg := range r.Segments {
		if seg.Last == 0 {
			fmt.Printf("  %s: no readable record at its start\n", filepath.Base(seg.File))
			continue
		}
		fmt.Printf("  %s: events %d to %d, readable up to byte %d\n", filepath.Base(seg.File), seg.First, seg.Last, seg.End)
	}
	for _, m := range r.Missing {
		fmt.Printf("missing: events %d to %d\n", m[0], m[1])
	}
	for _, d := range r.Damage {
		fmt.Println("damage:", d)
	}
	if r.Torn != "" {
		fmt.Println("torn tail (never acknowledged, dropped on start):", r.Torn)
	}
	if len(r.Damage) == 0 {
		fmt.Println("ok: the coordinator starts on this ledger")
		return
	}
	fmt.Println("the coordinator refuses this ledger; `leasegate ledger recover` rebuilds it from the readable events, keeping the files aside")
}

// dropped is a readable event that recover could not keep.
type dropped struct {
	Seq    uint64 `json:"seq"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// recoverReport is what `ledger recover --json` prints.
type recoverReport struct {
	Kept    int         `json:"kept_events"`
	Missing [][2]uint64 `json:"missing_seqs"`
	Dropped []dropped   `json:"dropped"`
	Aside   []string    `json:"originals"`
}

// ledgerRecover rebuilds the ledger from every readable event that still
// fits the ones before it, after moving the original files aside.
func ledgerRecover(f common, path string, s *bolt.Salvage) error {
	tmp := path + ".recovering"
	kept, drops, err := rebuild(tmp, s.Events)
	if err != nil {
		return fmt.Errorf("ledger recover: %w", err)
	}
	aside, err := swapLedger(path, tmp)
	if err != nil {
		return fmt.Errorf("ledger recover: %w", err)
	}
	r := recoverReport{Kept: kept, Missing: append([][2]uint64{}, s.Missing()...), Dropped: append([]dropped{}, drops...), Aside: append([]string{}, aside...)}
	if f.jsonOut {
		return printJSON(r)
	}
	fmt.Printf("rebuilt %s: %d events kept\n", path, kept)
	for _, m := range r.Missing {
		fmt.Printf("lost: events %d to %d (unreadable)\n", m[0], m[1])
	}
	for _, d := range drops {
		fmt.Printf("lost: event %d (%s), which no longer fits after what was lost: %s\n", d.Seq, d.Type, d.Reason)
	}
	for _, a := range aside {
		fmt.Println("original kept as", a)
	}
	return nil
}

// rebuild writes a new ledger at path from evs, in order and numbered
// afresh, keeping each event the lease table and blocker book accept
// after the ones kept before it: an event that followed a lost one may
// no longer fit (a release of a lost grant).
func rebuild(path string, evs []gate.Event) (int, []dropped, error) {
	if err := removeLedgerFiles(path); err != nil {
		return 0, nil, err
	}
	l, err := bolt.Open(path, bolt.DefaultConfig())
	if err != nil {
		return 0, nil, err
	}
	table, book := gate.NewTable(), blocker.NewBook()
	var drops []dropped
	var batch []gate.Event
	kept := 0
	for _, e := range evs {
		orig := e.Seq
		e.Seq = uint64(kept + 1)
		if err := errors.Join(table.Apply(e), book.Apply(e)); err != nil {
			drops = append(drops, dropped{Seq: orig, Type: string(e.Type), Reason: err.Error()})
			continue
		}
		batch, kept = append(batch, e), kept+1
		if len(batch) == bolt.DefaultMaxBatch {
			if _, err := l.Append(context.Background(), batch...); err != nil {
				l.Close()
				return 0, nil, err
			}
			batch = batch[:0]
		}
	}
	if _, err := l.Append(context.Background(), batch...); err != nil {
		l.Close()
		return 0, nil, err
	}
	return kept, drops, l.Close()
}

// swapLedger moves the ledger at path and its journal aside (suffixed
// with the time) and puts the one rebuilt at tmp in their place.
func swapLedger(path, tmp string) ([]string, error) {
	stamp := time.Now().UTC().Format("20060102T150405Z")
	var aside []string
	for _, name := range ledgerFiles(path) {
		to := name + ".damaged-" + stamp
		if err := os.Rename(name, to); err == nil {
			aside = append(aside, to)
		} else if !errors.Is(err, os.ErrNotExist) {
			return aside, err
		}
	}
	from := ledgerFiles(tmp)
	for i, name := range ledgerFiles(path) {
		if err := os.Rename(from[i], name); err != nil {
			return aside, err
		}
	}
	return aside, nil
}

func ledgerFiles(path string) []string {
	return []string{path, bolt.SegmentPath(path, 0), bolt.SegmentPath(path, 1)}
}

func removeLedgerFiles(path string) error {
	for _, name := range ledgerFiles(path) {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
