package etcd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/leasegate/leasegate/store"
)

// Ledger is a store.Ledger shared through etcd. Open it with Open.
type Ledger struct {
	cfg  Config
	cli  *clientv3.Client
	keys keys
	log  hclog.Logger

	last atomic.Uint64 // seq of the last event this ledger has seen committed

	// seenHead is the highest head the head watch reported; restarts
	// counts the watch's starts, and caughtRestarts is restarts as it was
	// when the last CatchUp or Reload began (Behind).
	seenHead, restarts, caughtRestarts atomic.Uint64
	// committing is the last seq of the commit in flight, 0 between
	// commits (ownHead).
	committing atomic.Uint64
	// highRev is the highest etcd revision a read or commit answered;
	// recheck asks the head watch for a catch-up (wentback.go).
	highRev atomic.Int64
	recheck chan struct{}
	// answered signals each keep-alive answer to the head watch, which
	// then looks whether the ledger went back (wentback.go).
	answered chan struct{}

	mu     sync.Mutex
	queue  []*request
	closed bool

	// commitMu is held by the committer over one commit and by CatchUp, so
	// that the head a commit is conditioned on moves only with last.
	commitMu  sync.Mutex
	headRev   int64            // ModRevision of the head key at last; 0 when absent
	lastRec   recordID         // the record holding last; zero when not known (wentback.go)
	conflict  *ConflictError   // the lost race not yet caught up with
	lease     clientv3.LeaseID // the session's
	memberKey string           // the session's member key
	// epoch counts the CatchUps that brought in other writers' events; a
	// call queued before one was decided without them and is refused.
	epoch atomic.Uint64

	batchMu sync.Mutex
	batches store.Batches // events per commit written

	sessMu sync.Mutex
	sess   sessionState
	sessCh chan struct{} // signalled on each loss and new session

	wake   chan struct{}
	ctx    context.Context // ends when Close gives up on a commit in progress
	cancel context.CancelFunc
	done   chan struct{} // closed when the committer has returned
}

// Open connects to the cluster, reads the workspace's head and starts the
// committer. The ledger owns its client and closes it in Close.
func Open(ctx context.Context, cfg Config) (*Ledger, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("etcd ledger config: %w", err)
	}
	cfg.setDefaults()
	cli, err := newClient(context.WithoutCancel(ctx), cfg)
	if err != nil {
		return nil, fmt.Errorf("etcd client for %v: %w", cfg.Endpoints, err)
	}
	l := &Ledger{cfg: cfg, cli: cli, keys: newKeys(cfg.Workspace), log: cfg.Logger.Named("etcd-ledger"), batches: store.NewBatches(),
		wake: make(chan struct{}, 1), sessCh: make(chan struct{}, 1), recheck: make(chan struct{}, 1), answered: make(chan struct{}, 1), done: make(chan struct{})}
	if err := l.readHead(ctx); err != nil {
		cli.Close()
		return nil, err
	}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	if err := l.startSession(ctx); err != nil {
		l.cancel()
		cli.Close()
		return nil, err
	}
	go l.run()
	l.log.Info("opened", "endpoints", cfg.Endpoints, "workspace", cfg.Workspace, "last-seq", l.last.Load(), "head-revision", l.headRev)
	return l, nil
}

// get is one read, bounded by DialTimeout: the etcd client waits for a
// member to come back for as long as its context lets it, and a caller
// such as the coordinator's catch-up reads with its table locked.
func (l *Ledger) get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	rctx, cancel := context.WithTimeout(ctx, l.cfg.DialTimeout)
	defer cancel()
	resp, err := l.cli.Get(rctx, key, opts...)
	return resp, l.unanswered(ctx, rctx, err)
}

// unanswered names why a bounded read failed when etcd is the cause: it
// did not answer within DialTimeout, or the connection to it was lost
// (gRPC Unavailable: a member stopped while the read was in flight).
func (l *Ledger) unanswered(ctx, rctx context.Context, err error) error {
	switch {
	case err == nil || ctx.Err() != nil:
		return err
	case rctx.Err() != nil:
		return fmt.Errorf("etcd did not answer within %v: %w", l.cfg.DialTimeout, err)
	case status.Code(err) == codes.Unavailable:
		return fmt.Errorf("etcd is unreachable: %w", err)
	}
	return err
}

// readHead sets last and headRev from etcd.
func (l *Ledger) readHead(ctx context.Context) error {
	resp, err := l.get(ctx, l.keys.head())
	if err != nil {
		return fmt.Errorf("read ledger head from etcd at %v (%s): %w", l.cfg.Endpoints, probe(l.cfg.Endpoints), err)
	}
	if len(resp.Kvs) == 0 {
		return nil
	}
	last, err := parseSeq(resp.Kvs[0].Value)
	if err != nil {
		return err
	}
	l.last.Store(last)
	l.headRev = resp.Kvs[0].ModRevision
	l.raiseRev(resp.Header.Revision)
	return nil
}

// Client is the ledger's etcd client, for watching the workspace's keys
// and for sessions. It is closed by Close.
func (l *Ledger) Client() *clientv3.Client { return l.cli }

// HeadKey is the key every commit rewrites: a watch on it sees every
// append of every writer.
func (l *Ledger) HeadKey() string { return l.keys.head() }

// LastSeq is the seq of the last event this ledger has seen committed, by
// itself or (after CatchUp) by another writer.
func (l *Ledger) LastSeq() uint64 { return l.last.Load() }

// Close fails every Append not yet committed with store.ErrClosed, waits
// for a commit in progress (at most DialTimeout; then its callers are told
// its outcome is unknown) and closes the client.
func (l *Ledger) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	queued := l.queue
	l.queue = nil
	l.mu.Unlock()
	for _, r := range queued {
		r.finish(nil, errClosed())
	}
	l.signal()
	t := time.NewTimer(l.cfg.DialTimeout)
	select {
	case <-l.done:
	case <-t.C:
		l.cancel()
		<-l.done
	}
	t.Stop()
	l.cancel()
	if err := l.cli.Close(); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("close etcd client: %w", err)
	}
	return nil
}

func (l *Ledger) closing() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

func (l *Ledger) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}
