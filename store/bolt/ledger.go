package bolt

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	bbolt "go.etcd.io/bbolt"

	"github.com/leasegate/leasegate/store"
)

// fileMode is the mode of a new ledger file: the ledger names every owner
// and path of the workspace, so only its user may read it.
const fileMode = 0o600

// Ledger is a store.Ledger in one bbolt file. Its committer goroutine runs
// from Open until Close.
type Ledger struct {
	db      *bbolt.DB
	path    string
	cfg     Config
	log     hclog.Logger
	lastSeq atomic.Uint64

	reqs    chan *request // Appends waiting for the committer
	quit    chan struct{} // closed by Close
	stopped chan struct{} // closed when the committer has returned

	closeOnce sync.Once

	// commitHook, when set (by tests), runs inside each commit's
	// transaction with the number of events; an error aborts the commit.
	commitHook func(events int) error
}

var _ store.Ledger = (*Ledger)(nil)

// Open opens or creates the ledger file at path (mode 0600) and starts its
// committer. A file that another process holds open fails within
// cfg.LockTimeout with store.ErrLocked: a workspace has one coordinator.
func Open(path string, cfg Config) (*Ledger, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("ledger config: %w", err)
	}
	cfg = cfg.withDefaults()
	db, err := bbolt.Open(path, fileMode, &bbolt.Options{Timeout: cfg.LockTimeout, NoSync: cfg.NoSync, NoFreelistSync: true, FreelistType: bbolt.FreelistMapType})
	if errors.Is(err, bbolt.ErrTimeout) {
		return nil, fmt.Errorf("open ledger %s: %w after %s: %w", path, store.ErrLocked, cfg.LockTimeout, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	last, err := prepare(db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open ledger %s: %w", path, err)
	}
	l := &Ledger{
		db: db, path: path, cfg: cfg, log: cfg.Logger.Named("ledger"),
		reqs: make(chan *request, cfg.MaxBatch), quit: make(chan struct{}), stopped: make(chan struct{}),
	}
	l.lastSeq.Store(last)
	go l.run()
	l.log.Debug("ledger opened", "path", path, "last-seq", last)
	if cfg.NoSync {
		l.log.Warn("fsync disabled: a crash of the machine can lose acknowledged events", "path", path)
	}
	return l, nil
}

// Path is the file the ledger lives in.
func (l *Ledger) Path() string { return l.path }

// LastSeq is the Seq of the last committed event, 0 when there is none.
func (l *Ledger) LastSeq() uint64 { return l.lastSeq.Load() }

// Close stops the committer after the commit in progress, fails every
// Append still queued with store.ErrClosed, and closes the file, releasing
// its lock. Later calls return nil.
func (l *Ledger) Close() error {
	var err error
	l.closeOnce.Do(func() {
		close(l.quit)
		<-l.stopped
		err = l.db.Close()
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
