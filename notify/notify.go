// Package notify delivers owner notices (reminders, evictions, reclaims,
// blockers) to a webhook through go-retryablehttp. A notice that cannot be
// delivered is retried with backoff and then logged as undelivered; it is
// never silently dropped, and the ledger keeps every notice regardless.
package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/leasegate/leasegate"
)

// DefaultQueue is how many notices may wait for delivery; past it the
// oldest are recorded as undelivered.
const DefaultQueue = 1024

// Config configures a Notifier.
type Config struct {
	// URL receives a POST of each notice as JSON. Required, http or https.
	URL string
	// RetryMax is how many times a failed delivery is retried. Default 5.
	RetryMax int
	// Timeout bounds one attempt. Default 10 s.
	Timeout time.Duration
	// RetryWaitMin and RetryWaitMax bound the backoff between attempts.
	// Defaults 200 ms and 5 s.
	RetryWaitMin, RetryWaitMax time.Duration
	// Logger; nil means no logging.
	Logger hclog.Logger
	// Undelivered, if set, is told of each notice that exhausted its
	// retries (or was pushed out of a full queue), so it can be recorded.
	// Run calls it, one notice at a time, never with a lock held.
	Undelivered func(leasegate.Notice, error)
}

// lostNotice is a notice pushed out of a full queue, waiting for Run to
// report it.
type lostNotice struct {
	x   leasegate.Notice
	err error
}

// Notifier posts notices in order from one goroutine (Run).
type Notifier struct {
	cfg   Config
	log   hclog.Logger
	hc    *retryablehttp.Client
	mu    sync.Mutex
	queue []leasegate.Notice
	lost  []lostNotice
	wake  chan struct{}
	// Undelivered counts notices that exhausted their retries.
	undelivered int
}

// CheckURL refuses a webhook URL notices cannot be posted to: anything
// but an http or https URL with a host.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("notify url %q: want an http or https URL", raw)
	}
	return nil
}

// New validates cfg and returns a Notifier; call Run to deliver.
func New(cfg Config) (*Notifier, error) {
	if err := CheckURL(cfg.URL); err != nil {
		return nil, err
	}
	if cfg.RetryMax == 0 {
		cfg.RetryMax = 5
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.RetryWaitMin == 0 {
		cfg.RetryWaitMin = 200 * time.Millisecond
	}
	if cfg.RetryWaitMax == 0 {
		cfg.RetryWaitMax = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	hc := retryablehttp.NewClient()
	hc.RetryMax = cfg.RetryMax
	hc.RetryWaitMin, hc.RetryWaitMax = cfg.RetryWaitMin, cfg.RetryWaitMax
	hc.HTTPClient.Timeout = cfg.Timeout
	hc.Logger = cfg.Logger.Named("notify")
	hc.ErrorHandler = retryablehttp.PassthroughErrorHandler // keep the last answer, to name it
	return &Notifier{cfg: cfg, log: cfg.Logger.Named("notify"), hc: hc, wake: make(chan struct{}, 1)}, nil
}

// ErrQueueFull is the cause given for a notice pushed out of a full queue.
var ErrQueueFull = errors.New("notice queue full")

// Send queues a notice; it never blocks.
func (n *Notifier) Send(x leasegate.Notice) {
	n.mu.Lock()
	if len(n.queue) >= DefaultQueue {
		n.undelivered++
		n.log.Error("notice undelivered: queue full", "owner", n.queue[0].Owner, "kind", n.queue[0].Kind, "seq", n.queue[0].Seq)
		n.lost = append(n.lost, lostNotice{n.queue[0], ErrQueueFull})
		n.queue = n.queue[1:]
	}
	n.queue = append(n.queue, x)
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Undelivered is how many notices could not be delivered.
func (n *Notifier) Undelivered() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.undelivered
}

// Run delivers queued notices, in order, until ctx ends, and reports each
// one it could not deliver to Config.Undelivered.
func (n *Notifier) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-n.wake:
		}
		for {
			x, lost, ok := n.next()
			if !ok {
				break
			}
			for _, l := range lost {
				n.report(l.x, l.err)
			}
			if x == nil {
				continue
			}
			if err := n.post(ctx, *x); err != nil {
				n.mu.Lock()
				n.undelivered++
				n.mu.Unlock()
				n.log.Error("notice undelivered", "owner", x.Owner, "kind", x.Kind, "seq", x.Seq, "error", err)
				n.report(*x, err)
			}
		}
	}
}

func (n *Notifier) report(x leasegate.Notice, err error) {
	if n.cfg.Undelivered != nil {
		n.cfg.Undelivered(x, err)
	}
}

// next takes the notices pushed out of the queue since the last call and
// the oldest queued notice (nil if none); ok is false when both are empty.
func (n *Notifier) next() (x *leasegate.Notice, lost []lostNotice, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	lost, n.lost = n.lost, nil
	if len(n.queue) > 0 {
		head := n.queue[0]
		x, n.queue = &head, n.queue[1:]
	}
	return x, lost, x != nil || len(lost) > 0
}

func (n *Notifier) post(ctx context.Context, x leasegate.Notice) error {
	body, err := json.Marshal(x)
	if err != nil {
		return err
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodPost, n.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := n.hc.Do(req)
	if err != nil {
		return fmt.Errorf("webhook unreachable: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}
