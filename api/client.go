package api

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/blocker"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/neterr"
	"github.com/leasegate/leasegate/internal/unixsock"
)

// ClientConfig configures a Client.
type ClientConfig struct {
	// Socket is the coordinator's unix socket. Either Socket or BaseURL.
	Socket string
	// BaseURL is a TCP address like http://127.0.0.1:7070 (needs Token).
	BaseURL string
	// Token is the bearer token for TCP, and the admin token for eviction.
	Token string
	// RetryMax is how many times one call is retried when the coordinator
	// cannot be reached or answers 5xx. Default 4 (about 7 s of backoff).
	RetryMax int
	// NoStream sends every call as a plain HTTP request. Default false:
	// Mutate, Lease (but eviction), Check, Heartbeat and Activity go over one
	// upgraded connection (StreamProtocol) when the coordinator offers it,
	// and over HTTP when it does not or the stream breaks.
	NoStream bool
	// Logger; nil means no logging.
	Logger hclog.Logger
}

// Client talks to a coordinator. It is safe for concurrent use.
type Client struct {
	cfg  ClientConfig
	base string
	hc   *retryablehttp.Client
	// stream is a plain client for long-lived streams (no timeout, no retry).
	stream *http.Client
	// frames carries the hot-path calls over StreamProtocol.
	frames *streamDialer
}

var _ leasegate.Service = (*Client)(nil)

// NewClient returns a client for the coordinator at cfg.Socket or
// cfg.BaseURL.
func NewClient(cfg ClientConfig) (*Client, error) {
	if (cfg.Socket == "") == (cfg.BaseURL == "") {
		return nil, errors.New("api client: set exactly one of socket and base url")
	}
	if cfg.RetryMax == 0 {
		cfg.RetryMax = 4
	}
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}
	base := cfg.BaseURL
	if cfg.Socket != "" {
		sock := cfg.Socket
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return unixsock.Dial(ctx, sock)
		}
		base = "http://leasegate"
	}
	hc := retryablehttp.NewClient()
	hc.HTTPClient = &http.Client{Transport: tr}
	hc.RetryMax = cfg.RetryMax
	hc.RetryWaitMin, hc.RetryWaitMax = 200*time.Millisecond, 3*time.Second
	hc.Logger = quietLogger{cfg.Logger.Named("client")}
	hc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	hc.CheckRetry = retryPolicy(cfg.Socket != "")
	return &Client{cfg: cfg, base: base, hc: hc, stream: &http.Client{Transport: tr}, frames: &streamDialer{cfg: cfg}}, nil
}

// retryPolicy is retryablehttp's default policy, except that on the unix
// socket a refused connection, or no socket at all, is not retried: no
// coordinator listens there (it exited, or was killed), and none will
// until someone starts one. Retrying would only wait out RetryMax backoffs
// (about 3 s) before saying so, while a gated write's caller took the
// silence for a coordinator that is slow or paused; the callers' own
// loops (api.Gate, a hook's wait, the sidecar that starts a coordinator
// again) decide what to do, and now at once. A full listen backlog
// (EAGAIN) and 5xx answers are still retried.
func retryPolicy(socket bool) retryablehttp.CheckRetry {
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if socket && err != nil && ctx.Err() == nil && (neterr.Refused(err) || errors.Is(err, fs.ErrNotExist)) {
			return false, nil
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
}

// Close closes the stream and releases idle connections. Calls made
// after Close use fresh HTTP connections.
func (c *Client) Close() {
	c.frames.close()
	c.stream.CloseIdleConnections()
}

// post sends a hot-path call over the stream, or over HTTP when the
// stream is off, refused or broken.
func (c *Client) post(ctx context.Context, path string, in, out any) error {
	if c.cfg.NoStream {
		return c.do(ctx, http.MethodPost, path, in, out)
	}
	var body []byte
	if in != nil {
		var err error
		if body, err = marshalRequest(in); err != nil {
			return err
		}
	}
	target := http.MethodPost + " " + path
	if requestHead+len(target)+len(body) > MaxBody {
		// Over the stream's frame limit: HTTP answers REQUEST_TOO_LARGE
		// for this call and the stream stays open for the others.
		return c.do(ctx, http.MethodPost, path, in, out)
	}
	cs, err := c.frames.get(ctx)
	if err == nil {
		var a streamAnswer
		if a, err = cs.roundTrip(ctx, target, body); err == nil {
			return c.decodeAnswer(a.status, a.body, out)
		}
		if errors.Is(err, errStreamDown) || errors.Is(err, ErrUnavailable) {
			c.frames.drop(cs)
		}
	}
	if !errors.Is(err, errStreamDown) {
		return err
	}
	c.cfg.Logger.Debug("stream unavailable, using http", "path", path, "error", err)
	return c.do(ctx, http.MethodPost, path, in, out)
}

// do sends one request and decodes the JSON answer into out. Transport
// failures and 5xx after retries become ErrUnavailable; other errors are
// *APIError.
func (c *Client) do(ctx context.Context, method, path string, in, out any, hdr ...string) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.Token != "" && c.cfg.BaseURL != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w at %s: %v", ErrUnavailable, c.where(), err)
	}
	defer resp.Body.Close()
	return c.decode(resp, out)
}

func (c *Client) where() string {
	if c.cfg.Socket != "" {
		return c.cfg.Socket
	}
	return c.cfg.BaseURL
}

func (c *Client) decode(resp *http.Response, out any) error {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("%w at %s: reading answer: %v", ErrUnavailable, c.where(), err)
	}
	return c.decodeAnswer(resp.StatusCode, data, out)
}

// decodeAnswer reads an answer of either transport: a result for 200, an
// *APIError for an API error, ErrUnavailable for 5xx or anything that is
// not the API's.
func (c *Client) decodeAnswer(status int, data []byte, out any) error {
	if status != http.StatusOK {
		var b ErrorBody
		if json.Unmarshal(data, &b) != nil || b.Error.Code == "" {
			return fmt.Errorf("%w at %s: HTTP %d with a body that is not the API's", ErrUnavailable, c.where(), status)
		}
		if status >= 500 {
			return fmt.Errorf("%w at %s: %s", ErrUnavailable, c.where(), (&APIError{Status: status, Body: b}).Error())
		}
		return &APIError{Status: status, Body: b}
	}
	if out == nil {
		return nil
	}
	if err := decodeOK(data, out); err != nil {
		return fmt.Errorf("%w at %s: garbled answer: %v", ErrUnavailable, c.where(), err)
	}
	return nil
}

// decodeOK decodes a 200 answer, lease answers without reflection when
// they are in the form the server writes.
func decodeOK(data []byte, out any) error {
	switch out := out.(type) {
	case *leasegate.Result:
		return decodeResult(data, out)
	case *leasegate.LeaseResult:
		return decodeLeaseResult(data, out)
	}
	return json.Unmarshal(data, out)
}

// Health checks the coordinator without retrying.
func (c *Client) Health(ctx context.Context) (Health, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/v1/health", nil)
	if err != nil {
		return Health{}, err
	}
	if c.cfg.Token != "" && c.cfg.BaseURL != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	}
	resp, err := c.stream.Do(req)
	if err != nil {
		return Health{}, fmt.Errorf("%w at %s: %v", ErrUnavailable, c.where(), err)
	}
	defer resp.Body.Close()
	var h Health
	if err := c.decode(resp, &h); err != nil {
		return Health{}, err
	}
	if !h.OK || h.API != "v1" {
		return Health{}, fmt.Errorf("%w at %s: unexpected health answer", ErrUnavailable, c.where())
	}
	return h, nil
}

// Status returns the coordinator's status.
func (c *Client) Status(ctx context.Context) (leasegate.Status, error) {
	var s leasegate.Status
	return s, c.do(ctx, http.MethodGet, "/v1/status", nil, &s)
}

// Check returns what stands in the way of writing paths and who the
// caller is, in one request, over the stream when it is open.
func (c *Client) Check(ctx context.Context, paths []string) (leasegate.CheckView, error) {
	var v leasegate.CheckView
	return v, c.post(ctx, "/v1/check", CheckRequest{Paths: wirePaths(paths)}, &v)
}

// Register records an owner and the windows it names.
func (c *Client) Register(ctx context.Context, r leasegate.Registration) error {
	return c.do(ctx, http.MethodPost, "/v1/owners", r, nil)
}

// Join registers r and returns the owner the caller acts as: with
// r.JoinRoot, the live owner that already has r's root process, if the
// coordinator finds one the caller runs under; else r's own name (also
// from a coordinator that answers registrations with nothing).
func (c *Client) Join(ctx context.Context, r leasegate.Registration) (string, error) {
	path := "/v1/owners"
	if r.JoinRoot {
		path += "?join=root"
	}
	var j leasegate.Joined
	if err := c.do(ctx, http.MethodPost, path, r, &j); err != nil {
		return "", err
	}
	return cmp.Or(j.Owner, r.Name), nil
}

// Heartbeat beats for an owner and returns the coordinator's answer (a
// coordinator that answers with nothing sets no bound).
func (c *Client) Heartbeat(ctx context.Context, name string) (leasegate.Beat, error) {
	var b leasegate.Beat
	return b, c.post(ctx, "/v1/owners/"+url.PathEscape(name)+"/heartbeat", nil, &b)
}

// Activity reports non-mutation activity (cancels stop-idle).
func (c *Client) Activity(ctx context.Context, name string) error {
	return c.post(ctx, "/v1/owners/"+url.PathEscape(name)+"/activity", nil, nil)
}

// Stop opens the owner's stop-idle window and returns when its leases
// will be released if it stays idle.
func (c *Client) Stop(ctx context.Context, name, reason string) (time.Time, error) {
	var r StopResponse
	return r.ReleaseAt, c.do(ctx, http.MethodPost, "/v1/owners/"+url.PathEscape(name)+"/stop", StopRequest{Reason: reason}, &r)
}

// End releases an ended worker's auto leases and returns how many.
func (c *Client) End(ctx context.Context, name, reason string) (int, error) {
	var r EndResponse
	return r.Released, c.do(ctx, http.MethodPost, "/v1/owners/"+url.PathEscape(name)+"/end", StopRequest{Reason: reason}, &r)
}

// ReleaseCommitted releases the owner's leases on files of HEAD that are
// clean.
func (c *Client) ReleaseCommitted(ctx context.Context, name string) ([]gate.Lease, error) {
	var r LeasesResponse
	return r.Leases, c.do(ctx, http.MethodPost, "/v1/owners/"+url.PathEscape(name)+"/committed", nil, &r)
}

// Mutate gates one mutation (one request; see Gate for the whole protocol).
func (c *Client) Mutate(ctx context.Context, req leasegate.MutateRequest) (leasegate.Result, error) {
	var r leasegate.Result
	req.Paths, req.Files = wirePaths(req.Paths), wireFiles(req.Files)
	return r, c.post(ctx, "/v1/mutations", req, &r)
}

// WaitContention long-polls a contention for at most pollWait, or until
// ctx ends if that is sooner.
func (c *Client) WaitContention(ctx context.Context, id string) (leasegate.Result, error) {
	var r leasegate.Result
	return r, c.do(ctx, http.MethodPost, "/v1/contentions/"+url.PathEscape(id)+"/wait?timeout="+longPoll(ctx).String(), nil, &r)
}

// Withdraw withdraws a waiting contention: its write will not be made.
func (c *Client) Withdraw(ctx context.Context, id, reason string) (leasegate.Result, error) {
	var r leasegate.Result
	return r, c.do(ctx, http.MethodPost, "/v1/contentions/"+url.PathEscape(id)+"/withdraw", WithdrawRequest{Reason: reason}, &r)
}

// WaitBlocker long-polls a blocker's resolution for at most pollWait, or
// until ctx ends if that is sooner.
func (c *Client) WaitBlocker(ctx context.Context, id string) (leasegate.Result, error) {
	var r leasegate.Result
	return r, c.do(ctx, http.MethodPost, "/v1/blockers/"+url.PathEscape(id)+"/wait?timeout="+longPoll(ctx).String(), nil, &r)
}

// longPoll is how long one wait call asks the coordinator to hold it:
// pollWait, or until ctx's deadline when that comes sooner, so that a
// caller's deadline is answered rather than cut off a poll later.
func longPoll(ctx context.Context) time.Duration {
	d := pollWait
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl))
	}
	return max(d, time.Millisecond)
}

// Blockers lists open blockers (all of them with all).
func (c *Client) Blockers(ctx context.Context, all bool) ([]blocker.Report, error) {
	var r struct {
		Blockers []blocker.Report `json:"blockers"`
	}
	q := ""
	if all {
		q = "?all=true"
	}
	return r.Blockers, c.do(ctx, http.MethodGet, "/v1/blockers"+q, nil, &r)
}

// Blocker returns one blocker report.
func (c *Client) Blocker(ctx context.Context, id string) (blocker.Report, error) {
	var r blocker.Report
	return r, c.do(ctx, http.MethodGet, "/v1/blockers/"+url.PathEscape(id), nil, &r)
}

// Resolve carries out an operator's instruction on a blocker.
func (c *Client) Resolve(ctx context.Context, id string, a blocker.Action, by, note string) (leasegate.ResolveResult, error) {
	var r leasegate.ResolveResult
	return r, c.do(ctx, http.MethodPost, "/v1/blockers/"+url.PathEscape(id)+"/resolve", ResolveRequest{Action: a, By: by, Note: note}, &r)
}

// Lease performs an explicit lease operation. For an eviction, req.Admin
// names the admin for the record; the coordinator accepts it from an
// operator's process on the unix socket, and on TCP from a client whose
// token is the admin token.
func (c *Client) Lease(ctx context.Context, req leasegate.LeaseRequest) (leasegate.LeaseResult, error) {
	var r leasegate.LeaseResult
	req.Scope = wireScope(req.Scope)
	if req.Admin != "" {
		return r, c.do(ctx, http.MethodPost, "/v1/leases", req, &r, "X-Leasegate-Admin", req.Admin)
	}
	return r, c.post(ctx, "/v1/leases", req, &r)
}

// Whoami returns who the coordinator takes this process to be: the owners
// it acts as (from its ancestry), or an operator.
func (c *Client) Whoami(ctx context.Context) (leasegate.CallerView, error) {
	var v leasegate.CallerView
	return v, c.do(ctx, http.MethodGet, "/v1/whoami", nil, &v)
}

// GetLease returns one lease.
func (c *Client) GetLease(ctx context.Context, id gate.LeaseID) (gate.Lease, error) {
	var l gate.Lease
	return l, c.do(ctx, http.MethodGet, "/v1/leases/"+url.PathEscape(string(id)), nil, &l)
}

// Leases lists active leases, or those overlapping path.
func (c *Client) Leases(ctx context.Context, path string) ([]gate.Lease, error) {
	var r LeasesResponse
	q := ""
	if path != "" {
		q = "?path=" + url.QueryEscape(path)
	}
	return r.Leases, c.do(ctx, http.MethodGet, "/v1/leases"+q, nil, &r)
}

// History returns the audit trail for a lease id or a path (or all).
func (c *Client) History(ctx context.Context, id gate.LeaseID, path string, limit int) ([]gate.Event, error) {
	q := url.Values{}
	if id != "" {
		q.Set("lease", string(id))
	}
	if path != "" {
		q.Set("path", path)
	}
	if limit > 0 {
		q.Set("limit", fmt.Sprint(limit))
	}
	var r HistoryResponse
	return r.Events, c.do(ctx, http.MethodGet, "/v1/history?"+q.Encode(), nil, &r)
}

// ReportUngated reports a write that no sidecar gated. w.Path, a file's
// name, travels as the pattern naming it alone (gate.Literal), which spells
// a byte that is not UTF-8 `\xhh`: JSON would turn the byte into U+FFFD,
// and the report would name another file. The server undoes it.
func (c *Client) ReportUngated(ctx context.Context, w leasegate.UngatedWrite) error {
	w.Path = gate.Literal(w.Path)
	return c.do(ctx, http.MethodPost, "/v1/ungated", w, nil)
}

// Events streams events after seq to fn until ctx ends, the stream ends
// (follow false), or fn returns an error.
func (c *Client) Events(ctx context.Context, after uint64, follow bool, fn func(gate.Event) error) error {
	u := fmt.Sprintf("%s/v1/events?after=%d&follow=%t", c.base, after, follow)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if c.cfg.Token != "" && c.cfg.BaseURL != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	}
	resp, err := c.stream.Do(req)
	if err != nil {
		return fmt.Errorf("%w at %s: %v", ErrUnavailable, c.where(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return c.decode(resp, nil)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e gate.Event
		if err := json.Unmarshal(bytes.TrimSpace(sc.Bytes()), &e); err != nil {
			return fmt.Errorf("%w: garbled event: %v", ErrUnavailable, err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return sc.Err()
}
