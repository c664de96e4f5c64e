package bolt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	bbolt "go.etcd.io/bbolt"

	"github.com/leasegate/leasegate/store"
)

// fileMode is the mode of a new ledger file: the ledger names every owner
// and path of the workspace, so only its user may read it.
const fileMode = 0o600

// Ledger is a store.Ledger in a bbolt file and its journal. Its committer
// and copier goroutines run from Open until Close.
type Ledger struct {
	db      *bbolt.DB
	j       *journal
	path    string
	cfg     Config
	log     hclog.Logger
	lastSeq atomic.Uint64

	reqs    chan *request // Appends waiting for the committer
	quit    chan struct{} // closed by Close
	stopped chan struct{} // closed when the committer has returned
	copyReq chan struct{} // wakes the copier: a segment is sealed
	copied  chan struct{} // closed when the copier has returned

	// Owned by the committer: the last Seq it framed, its slot for each
	// commit in flight, and the settled signal of the latest commit.
	written uint64
	slots   chan struct{}
	last    <-chan struct{}
	flights sync.WaitGroup

	mu         sync.Mutex
	mem        memory        // committed events not yet in the bbolt file
	failure    error         // set once a journal write failed
	degraded   error         // the copier's last failure, while it retries
	healthWake chan struct{} // closed and replaced when degraded changes
	copyErr    error         // the copier's failure at Close, reported by Close
	off        atomic.Int64  // where the next commit goes in the active segment
	batches    store.Batches // events per commit written

	closeOnce sync.Once

	// commitHook, when set (by tests), runs before each commit's journal
	// write with the number of events; an error aborts the commit.
	commitHook func(events int) error
	// writeHook, when set (by tests), runs in each commit's flight just
	// before the write; an error stands for a failed write.
	writeHook func(events int) error
	// takeHook, when set (by tests), runs each time the committer takes
	// the first request of its next batch.
	takeHook func()
}

var _ store.Ledger = (*Ledger)(nil)

// Open opens or creates the ledger file at path and its journal segments
// next to it (all mode 0600), copies into the bbolt file what the journal
// holds beyond it, and starts the committer and the copier. A file that
// another process holds open fails within cfg.LockTimeout with
// store.ErrLocked: a workspace has one coordinator.
func Open(path string, cfg Config) (*Ledger, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("ledger config: %w", err)
	}
	cfg = cfg.withDefaults()
	if err := checkFile(path); err != nil {
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	db, err := openBolt(path, cfg)
	if err != nil {
		return nil, err
	}
	l := &Ledger{
		db: db, path: path, cfg: cfg, log: cfg.Logger.Named("ledger"),
		reqs: make(chan *request, cfg.MaxBatch), quit: make(chan struct{}), stopped: make(chan struct{}),
		copyReq: make(chan struct{}, 1), copied: make(chan struct{}),
		slots: make(chan struct{}, cfg.MaxInFlight), last: closedChan(), healthWake: make(chan struct{}), batches: store.NewBatches(),
	}
	if err := guard(path, l.load); err != nil {
		db.Close()
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	go l.run()
	go l.copier()
	l.log.Debug("ledger opened", "path", path, "last-seq", l.LastSeq())
	if cfg.NoSync {
		l.log.Warn("fsync disabled: a crash of the machine can lose acknowledged events", "path", path)
	}
	return l, nil
}

// checkFile refuses what bbolt would crash on or silently start over
// from: a file shorter than its meta pages say, a damaged page tree, or a
// missing or empty file whose journal still holds events.
func checkFile(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && fi.Size() == 0:
		return checkOrphanJournal(path)
	case err != nil:
		return err
	}
	m, err := checkMeta(path, fi.Size())
	if err != nil {
		return err
	}
	return checkPages(path, m)
}

// openBolt opens the bbolt file; a file that is locked fails with
// store.ErrLocked.
func openBolt(path string, cfg Config) (*bbolt.DB, error) {
	var db *bbolt.DB
	err := guard(path, func() error {
		var err error
		db, err = bbolt.Open(path, fileMode, &bbolt.Options{Timeout: cfg.LockTimeout, NoSync: cfg.NoSync, NoFreelistSync: true, FreelistType: bbolt.FreelistMapType})
		return err
	})
	if errors.Is(err, bbolt.ErrTimeout) {
		return nil, fmt.Errorf("open ledger %s: %w after %s: %w", path, store.ErrLocked, cfg.LockTimeout, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	return db, nil
}

// guard runs f, turning a panic or a memory fault inside bbolt (a damaged
// page it trusted) into a *CorruptError naming path.
func guard(path string, f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = &CorruptError{File: path, Offset: -1, Cause: fmt.Sprintf("bbolt cannot read it: %v", r)}
		}
	}()
	return f()
}

// Path is the file the ledger lives in.
func (l *Ledger) Path() string { return l.path }

// LastSeq is the Seq of the last committed event, 0 when there is none.
func (l *Ledger) LastSeq() uint64 { return l.lastSeq.Load() }

// load checks the bbolt file's format, opens the journal and copies what
// it holds beyond the bbolt file's last event into it.
func (l *Ledger) load() error {
	last, err := prepare(l.db, l.path)
	if err != nil {
		return err
	}
	if l.j, err = openJournal(l.path, l.cfg.JournalSize, l.cfg.NoSync); err != nil {
		return err
	}
	if last, err = l.recover(last); err != nil {
		l.j.close()
		return err
	}
	l.lastSeq.Store(last)
	l.written, l.mem.copiedSeq = last, last
	return nil
}

func closedChan() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// Close stops the committer after the commit in progress, fails every
// Append still queued with store.ErrClosed, copies the journal's events
// into the bbolt file, and closes the files, releasing the lock. An error
// copying leaves the events in the journal, where the next Open finds
// them. Later calls return nil.
func (l *Ledger) Close() error {
	var err error
	l.closeOnce.Do(func() {
		close(l.quit)
		<-l.stopped
		<-l.copied
		err = errors.Join(l.copyErr, l.j.close(), l.db.Close())
		l.log.Debug("ledger closed", "path", l.path, "last-seq", l.LastSeq())
	})
	return err
}

func (l *Ledger) closing() bool {
	select {
	case <-l.quit:
		return true
	default:
		return false
	}
}
