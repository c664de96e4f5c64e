package coordinator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"
	"github.com/oklog/ulid/v2"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/liveness"
	"github.com/leasegate/leasegate/scheduler"
)

// Coordinator serves one workspace. Create it with Open, start it with Run.
type Coordinator struct {
	cfg   Config
	log   hclog.Logger
	clock clock.Clock
	sched *scheduler.Scheduler
	w     *writer
	hub   *hub

	// reportMu orders rewrites of blocker report files (report.go); take
	// it before mu.
	reportMu sync.Mutex
	// unwritten are the blockers whose report files the last write could
	// not put on disk (a full disk): the sweep writes them again.
	unwrittenMu sync.Mutex
	unwritten   map[string]bool

	// refusals are the kinds of record the ledger refused last time
	// (refusals.go).
	refusals refusals

	mu          sync.Mutex
	table       *gate.Table
	book        *blocker.Book
	owners      map[string]*owner
	roots       map[int][]string       // owners by root pid (caller.go)
	contentions map[string]*contention // by contention id
	byKey       map[string]*contention // waiting contentions by mutation key
	unsettled   map[string]gate.Event  // while replaying: heartbeats of contentions not yet decided (unsettled.go)
	held        map[string]*hold       // blockers whose mutation is held, by blocker id
	ungated     []leasegate.UngatedWrite
	roomRefused *roomRefusal // the last commit refused for want of journal room, until one as large is taken
	ended       *recentEnds  // paths of leases ended within ungatedGrace
	gatedIn     *recentEnds  // paths granted under their writer's check-out within ungatedGrace
	lastLoss    time.Time    // when the watcher's last lost events were recorded
	entropy     *ulid.MonotonicEntropy
	startedAt   time.Time
	pidNS       leasegate.PidNS // the coordinator's own pid namespace
	uids        uidMap          // its user namespace's uid_map: nil in the initial one
	kick        chan struct{}   // asks the liveness loop for a check now
	served      atomic.Uint64   // the ledger session the table was loaded under (session.go)
	committed   *committedFold  // on a shared ledger: the fold of committed events only (committed.go)
	numbers     numbering       // grants waiting for the token their commit fixes (numbered.go)
	// leftDegraded: the ledger's last health event, as replayed at Open,
	// is ledger.degraded (ledgerhealth.go). Set before Run only.
	leftDegraded bool
	// wentBack is what the shared ledger lost when it last went back;
	// wentBackNudge asks follow to record it (wentback.go).
	wentBack      *wentBack
	wentBackNudge chan struct{}
}

var _ leasegate.Service = (*Coordinator)(nil)

// Open replays the ledger into a fresh lease table and blocker book and
// returns a coordinator ready to Run. A ledger that does not replay (an
// event that breaks an invariant) is an error: the coordinator never starts
// on a state it cannot explain.
func Open(ctx context.Context, cfg Config) (*Coordinator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("coordinator config: %w", err)
	}
	// Every owner's liveness and every peer's ancestry is read in /proc:
	// where /proc is another pid namespace's, that evidence would be false.
	// Where none is mounted it is missing, and owners are judged unknown.
	// Where it hides processes (hidepid) no caller could be identified.
	if err := liveness.CheckProcfs(); errors.Is(err, liveness.ErrForeignProcfs) || errors.Is(err, liveness.ErrHiddenProcs) {
		return nil, err
	}
	cfg.setDefaults()
	c := &Coordinator{
		cfg: cfg, log: cfg.Logger.Named("coordinator"), clock: cfg.Clock, hub: newHub(),
		table: gate.NewTableFor(cfg.Folding), book: blocker.NewBook(),
		owners: make(map[string]*owner), roots: make(map[int][]string), contentions: make(map[string]*contention),
		byKey: make(map[string]*contention), unsettled: make(map[string]gate.Event), held: make(map[string]*hold), ended: newRecentEnds(cfg.Folding),
		gatedIn: newRecentEnds(cfg.Folding),
		entropy: ulid.Monotonic(rand.Reader, 0), pidNS: CurrentPidNS(), uids: currentUIDMap(), kick: make(chan struct{}, 1),
		wentBackNudge: make(chan struct{}, 1), numbers: newNumbering(cfg.Ledger),
	}
	if s, ok := cfg.Ledger.(sessionKeeper); ok {
		gen, _ := s.Session()
		c.served.Store(gen)
	}
	if err := cfg.Ledger.Replay(ctx, 0, c.replay); err != nil {
		return nil, fmt.Errorf("replay ledger: %w", err)
	}
	c.adoptOpenBlockers()
	sched, err := scheduler.New(scheduler.Config{
		Clock: cfg.Clock, SweepEvery: scheduler.DefaultSweepEvery, RemindBefore: scheduler.DefaultRemindBefore,
		Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	c.sched = sched
	if _, ok := c.shared(); ok {
		c.committed = newCommittedFold(c.table, c.book, cfg.KeepEnded)
	}
	c.w = newWriter(cfg.Ledger, c.publishCommitted, c.numbers.on)
	c.startedAt = c.clock.Now()
	c.log.Info("ledger replayed", "last-seq", c.table.LastSeq(), "active-leases", c.table.ActiveCount())
	return c, nil
}

// boundEnded forgets the oldest ended leases once twice KeepEnded have
// piled up, keeping KeepEnded of them.
func (c *Coordinator) boundEnded() {
	if c.table.Ended() > 2*c.cfg.KeepEnded {
		c.table.PruneExcess(c.cfg.KeepEnded)
	}
}

// replay applies one ledger event at Open. Ended leases are bounded as
// they pile up, as commit does, so that a long history does not fill
// memory before the first commit; no later event names an ended lease, so
// forgetting one cannot break the replay.
func (c *Coordinator) replay(e gate.Event) error {
	if err := c.table.Apply(e); err != nil {
		return err
	}
	c.boundEnded()
	if err := c.book.Apply(e); err != nil {
		return err
	}
	c.replayOwner(e)
	c.noteContention(e)
	c.noteLedgerHealth(e)
	c.replayWentBack(e)
	return nil
}

// Run serves until ctx ends: the ledger writer, the scheduler (retries,
// stop-idle, sweeps, reminders) and the liveness loop. It closes the ledger
// before it returns.
func (c *Coordinator) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.sched.OnSweep(c.sweep)
	c.armReminders()
	c.watchReplayed()
	defer c.forgetAll()
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); c.w.run(ctx) }()
	go func() { defer wg.Done(); c.watchLedger(ctx) }()
	go func() { defer wg.Done(); c.livenessLoop(ctx) }()
	var schedErr error
	go func() { defer wg.Done(); schedErr = c.sched.Run(ctx) }()
	c.settleReplayed()
	if s, ok := c.shared(); ok {
		wg.Add(1)
		go func() { defer wg.Done(); c.follow(ctx, s) }()
	}
	if s, ok := c.cfg.Ledger.(sessionKeeper); ok {
		wg.Add(1)
		go func() { defer wg.Done(); c.keepServing(ctx, s) }()
	}
	if s, ok := c.cfg.Ledger.(sessionLedger); ok {
		wg.Add(1)
		go func() { defer wg.Done(); c.reclaimGoneHosts(ctx, s) }()
	}
	<-ctx.Done()
	// The ledger is closed before the goroutines are waited for: the
	// writer waits for the commits in flight, and one the store cannot
	// settle (etcd without quorum, unreachable) ends only when Close
	// gives up on it, failing its caller.
	closeErr := c.cfg.Ledger.Close()
	wg.Wait()
	c.releaseWaiters()
	c.hub.closeAll()
	if closeErr != nil {
		return closeErr
	}
	if schedErr != nil && schedErr != context.Canceled {
		return schedErr
	}
	return nil
}

// newID returns a fresh ULID. Call with c.mu held.
func (c *Coordinator) newID(now time.Time) string {
	return ulid.MustNew(ulid.Timestamp(now), c.entropy).String()
}

// commit applies decided events to the table and book and queues them for
// the ledger. Call with c.mu held; wait on the returned channel after
// unlocking. A lease event the table refuses is a bug in the caller and is
// returned without queueing anything.
func (c *Coordinator) commit(evs []gate.Event) (<-chan error, error) {
	if err := c.w.failed(); err != nil {
		return nil, err
	}
	if err := c.admit(evs); err != nil {
		return nil, err
	}
	if err := c.serving(); err != nil {
		return nil, err
	}
	for i := range evs {
		if err := c.table.Apply(evs[i]); err != nil {
			return nil, fmt.Errorf("commit: %w", err)
		}
		if err := c.book.Apply(evs[i]); err != nil {
			return nil, fmt.Errorf("commit: %w", err)
		}
		if evs[i].Type.EndsLease() {
			c.noteEnded(evs[i].LeaseID, evs[i].At)
			c.wakeWaiters(evs[i])
			c.blockersWaitingOn(evs[i])
		}
	}
	c.boundEnded()
	c.queuedForNumbers(evs)
	return c.w.enqueue(evs), nil
}

// durable waits for a commit to reach the ledger; a nil channel means
// nothing was committed.
func durable(ctx context.Context, done <-chan error) error {
	if done == nil {
		return nil
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Coordinator) published(evs []gate.Event) {
	c.hub.publish(evs)
	for _, e := range evs {
		if e.Type == gate.EventNotice && c.cfg.Notify != nil {
			c.cfg.Notify(leasegate.NoticeOf(e))
		}
	}
}

// Subscribe streams committed events until ctx ends or the subscriber
// falls more than buf events behind (then the channel closes).
func (c *Coordinator) Subscribe(ctx context.Context, buf int) <-chan gate.Event {
	ch := c.hub.subscribe(buf)
	go func() {
		<-ctx.Done()
		c.hub.unsubscribe(ch)
	}()
	return ch
}
