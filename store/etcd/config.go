package etcd

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
)

const (
	// DefaultDialTimeout bounds Open's first contact with the cluster.
	DefaultDialTimeout = 5 * time.Second
	// DefaultMaxBatchBytes bounds one commit's encoded events. etcd refuses
	// requests over 1.5 MiB by default (--max-request-bytes); one Append
	// larger than this commits alone and fails if etcd refuses it.
	DefaultMaxBatchBytes = 1 << 20
	// DefaultRetry is how long the committer waits before it asks etcd
	// again about a commit whose outcome it does not know.
	DefaultRetry = 200 * time.Millisecond
	// DefaultSessionTTL is how long a writer's session outlives its last
	// keep-alive: a coordinator cut off for longer commits nothing more
	// until it has caught up, and the others reclaim its owners.
	DefaultSessionTTL = 10 * time.Second
)

// Config selects the cluster and the workspace's place in it.
type Config struct {
	// Endpoints are the etcd client URLs (http://host:port). Required.
	Endpoints []string
	// Workspace names the shared ledger: every clone that names the same
	// workspace on the same cluster shares one lease table. Required; no
	// "/" at either end.
	Workspace string
	// DialTimeout bounds Open's first read of the head and every later
	// read (each page of a replay, each catch-up): a read that etcd does
	// not answer in time fails with its cause rather than waiting for the
	// cluster to come back. Default 0, which means DefaultDialTimeout
	// (5 s).
	DialTimeout time.Duration
	// MaxBatchBytes bounds one commit. Default 0, which means
	// DefaultMaxBatchBytes (1 MiB).
	MaxBatchBytes int
	// Retry is the pause between attempts to settle a commit whose outcome
	// is unknown. Default 0, which means DefaultRetry (200 ms).
	Retry time.Duration
	// Host names this writer's machine in its session; the others reclaim
	// the auto leases of owners on a host whose sessions all ended.
	// Default "", which means os.Hostname().
	Host string
	// SessionTTL is the session's lease TTL, whole seconds, at least 2 s.
	// Default 0, which means DefaultSessionTTL (10 s).
	SessionTTL time.Duration
	// Logger receives lifecycle and failure messages. Default nil, which
	// means hclog.NewNullLogger().
	Logger hclog.Logger
}

// Validate reports every problem with the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if len(c.Endpoints) == 0 {
		errs = append(errs, errors.New("no etcd endpoints"))
	}
	for _, e := range c.Endpoints {
		if strings.TrimSpace(e) == "" {
			errs = append(errs, errors.New("empty etcd endpoint"))
		}
	}
	if c.Workspace == "" || strings.HasPrefix(c.Workspace, "/") || strings.HasSuffix(c.Workspace, "/") {
		errs = append(errs, fmt.Errorf("workspace name %q: want a non-empty name without a leading or trailing /", c.Workspace))
	}
	if c.SessionTTL != 0 && (c.SessionTTL < 2*time.Second || c.SessionTTL%time.Second != 0) {
		errs = append(errs, fmt.Errorf("session TTL %v: want whole seconds, at least 2s", c.SessionTTL))
	}
	if strings.Contains(c.Host, "/") {
		errs = append(errs, fmt.Errorf("host %q: no / allowed", c.Host))
	}
	if c.DialTimeout < 0 || c.MaxBatchBytes < 0 || c.Retry < 0 {
		errs = append(errs, errors.New("negative dial timeout, batch size or retry"))
	}
	return errors.Join(errs...)
}

func (c *Config) setDefaults() {
	if c.DialTimeout == 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.MaxBatchBytes == 0 {
		c.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if c.Retry == 0 {
		c.Retry = DefaultRetry
	}
	if c.SessionTTL == 0 {
		c.SessionTTL = DefaultSessionTTL
	}
	if c.Host == "" {
		c.Host, _ = os.Hostname()
	}
	if c.Logger == nil {
		c.Logger = hclog.NewNullLogger()
	}
}
