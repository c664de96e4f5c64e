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

	"github.com/leasegate/leasegate/coordinator"
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
	// Logger; nil means no logging.
	Logger hclog.Logger
	// Undelivered, if set, is told of each notice that exhausted its
	// retries (or was pushed out of a full queue), so it can be recorded.
	Undelivered func(coordinator.Notice, error)
}

// Notifier posts notices in order from one goroutine (Run).
type Notifier struct {
	cfg   Config
	log   hclog.Logger
	hc    *retryablehttp.Client
	mu    sync.Mutex
	queue []coordinator.Notice
	wake  chan struct{}
	// Undelivered counts notices that exhausted their retries.
	undelivered int
}

// New validates cfg and returns a Notifier; call Run to deliver.
func New(cfg Config) (*Notifier, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("notify url %q: want an http or https URL", cfg.URL)
	}
	if cfg.RetryMax == 0 {
		cfg.RetryMax = 5
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	hc := retryablehttp.NewClient()
	hc.RetryMax = cfg.RetryMax
	hc.RetryWaitMin, hc.RetryWaitMax = 200*time.Millisecond, 5*time.Second
	hc.HTTPClient.Timeout = cfg.Timeout
	hc.Logger = cfg.Logger.Named("notify")
	return &Notifier{cfg: cfg, log: cfg.Logger.Named("notify"), hc: hc, wake: make(chan struct{}, 1)}, nil
}

// Send queues a notice; it never blocks.
func (n *Notifier) Send(x coordinator.Notice) {
	n.mu.Lock()
	if len(n.queue) >= DefaultQueue {
		n.undelivered++
		n.log.Error("notice undelivered: queue full", "owner", n.queue[0].Owner, "kind", n.queue[0].Kind, "seq", n.queue[0].Seq)
		n.lost(n.queue[0], errors.New("notice queue full"))
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

// Run delivers queued notices until ctx ends.
func (n *Notifier) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-n.wake:
		}
		for {
			x, ok := n.next()
			if !ok {
				break
			}
			if err := n.post(ctx, x); err != nil {
				n.mu.Lock()
				n.undelivered++
				n.mu.Unlock()
				n.log.Error("notice undelivered", "owner", x.Owner, "kind", x.Kind, "seq", x.Seq, "error", err)
				n.lost(x, err)
			}
		}
	}
}

func (n *Notifier) lost(x coordinator.Notice, err error) {
	if n.cfg.Undelivered != nil {
		go n.cfg.Undelivered(x, err) // never block Send or Run on the record
	}
}

func (n *Notifier) next() (coordinator.Notice, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.queue) == 0 {
		return coordinator.Notice{}, false
	}
	x := n.queue[0]
	n.queue = n.queue[1:]
	return x, true
}

func (n *Notifier) post(ctx context.Context, x coordinator.Notice) error {
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
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return errors.New("webhook answered " + resp.Status)
	}
	return nil
}
