package api

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/leasegate/leasegate/internal/unixsock"
)

// handshakeTimeout bounds dialing and upgrading a stream. A coordinator
// on a local socket answers in microseconds; one that does not answer in
// this time is treated as down and the call goes over plain HTTP, whose
// retries decide.
const handshakeTimeout = 5 * time.Second

// errStreamDown means the stream could not carry a call: none could be
// opened, the coordinator refused the upgrade, or the connection broke
// before the answer. The call then goes over plain HTTP. (A call cut off
// by a broken connection may have been carried out; HTTP's retries have
// the same property.)
var errStreamDown = errors.New("stream down")

// streamDialer opens the client's stream, one at a time, and keeps it.
type streamDialer struct {
	cfg ClientConfig

	mu      sync.Mutex
	cur     *clientStream
	refused bool // the coordinator does not offer the stream: use HTTP
	closed  bool
}

// get returns the open stream, opening one if there is none.
func (d *streamDialer) get(ctx context.Context) (*clientStream, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.refused || d.closed:
		return nil, errStreamDown
	case d.cur != nil && d.cur.alive():
		return d.cur, nil
	}
	cs, err := d.open(ctx)
	if errors.Is(err, errRefused) {
		d.refused = true
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errStreamDown, err)
	}
	d.cur = cs
	return cs, nil
}

// drop forgets a stream that broke, so the next call opens another.
func (d *streamDialer) drop(cs *clientStream) {
	d.mu.Lock()
	if d.cur == cs {
		d.cur = nil
	}
	d.mu.Unlock()
	cs.close()
}

// close closes the stream for good.
func (d *streamDialer) close() {
	d.mu.Lock()
	cs := d.cur
	d.cur, d.closed = nil, true
	d.mu.Unlock()
	if cs != nil {
		cs.close()
	}
}

// errRefused is an answer to the upgrade other than 101.
var errRefused = errors.New("upgrade refused")

// open dials the coordinator and upgrades the connection.
func (d *streamDialer) open(ctx context.Context) (*clientStream, error) {
	network, addr, err := d.address()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	defer cancel()
	conn, err := dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	br, err := d.handshake(conn)
	if err != nil {
		conn.Close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	return newClientStream(conn, br), nil
}

// dial connects to a unix socket at any path length, or over TCP.
func dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if network == "unix" {
		return unixsock.Dial(ctx, addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// address is where the stream dials: the socket, or the host of an
// http:// base URL.
func (d *streamDialer) address() (network, addr string, err error) {
	if d.cfg.Socket != "" {
		return "unix", d.cfg.Socket, nil
	}
	u, err := url.Parse(d.cfg.BaseURL)
	if err != nil || u.Scheme != "http" {
		return "", "", fmt.Errorf("%w: the stream needs a unix socket or an http:// base url", errRefused)
	}
	return "tcp", u.Host, nil
}

// handshake sends the upgrade request and reads the answer.
func (d *streamDialer) handshake(conn net.Conn) (*bufio.Reader, error) {
	var req strings.Builder
	req.WriteString("GET /v1/stream HTTP/1.1\r\nHost: leasegate\r\nConnection: Upgrade\r\nUpgrade: " + StreamProtocol + "\r\n")
	if d.cfg.Token != "" && d.cfg.BaseURL != "" {
		req.WriteString("Authorization: Bearer " + d.cfg.Token + "\r\n")
	}
	req.WriteString("\r\n")
	if _, err := io.WriteString(conn, req.String()); err != nil {
		return nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodGet})
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols || !strings.EqualFold(resp.Header.Get("Upgrade"), StreamProtocol) {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: HTTP %d", errRefused, resp.StatusCode)
	}
	return br, nil
}

// streamAnswer is one answer, or why there is none.
type streamAnswer struct {
	status int
	body   []byte
	err    error
}

// clientStream is one upgraded connection shared by every call of a
// Client. No goroutine reads it: the calls take turns. The call that finds
// nobody reading reads answers, hands the others theirs, and when its own
// arrives passes the reading on to a call still waiting, if any. A lone
// caller so reads its own answer, with no hand-off; an idle stream holds
// no goroutine.
type clientStream struct {
	conn   net.Conn
	frames *frameReader
	wmu    sync.Mutex // one request frame at a time

	mu      sync.Mutex
	pending map[uint64]*streamCall
	nextID  uint64
	leading bool  // a call is reading the connection
	err     error // set once the stream is broken
}

// streamCall is a call waiting for its answer.
type streamCall struct {
	turn      chan callTurn // one message: the answer, or the reading
	abandoned bool          // its ctx ended; its answer is read and dropped
}

// callTurn is what a waiting call is told: its answer, or to read.
type callTurn struct {
	answer streamAnswer
	lead   bool
}

func newClientStream(conn net.Conn, r *bufio.Reader) *clientStream {
	return &clientStream{conn: conn, frames: &frameReader{r: r}, pending: make(map[uint64]*streamCall)}
}

func (cs *clientStream) alive() bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.err == nil
}

// roundTrip sends one request and waits for its answer or ctx. A request
// abandoned for ctx is still answered; that answer is dropped.
func (cs *clientStream) roundTrip(ctx context.Context, target string, body []byte) (streamAnswer, error) {
	c := &streamCall{turn: make(chan callTurn, 1)}
	id, lead, err := cs.register(c)
	if err != nil {
		return streamAnswer{}, err
	}
	frame := appendRequest(make([]byte, 0, frameLen+requestHead+len(target)+len(body)), id, target, body)
	cs.wmu.Lock()
	_, err = cs.conn.Write(frame)
	cs.wmu.Unlock()
	if err != nil {
		cs.fail(fmt.Errorf("%w: %v", errStreamDown, err))
	}
	if !lead {
		select {
		case t := <-c.turn:
			if !t.lead {
				return t.answer, t.answer.err
			}
		case <-ctx.Done():
			return streamAnswer{}, cs.abandon(c, false, ctx.Err())
		}
	}
	return cs.lead(ctx, id, c)
}

// register assigns a request id; lead reports that nobody reads, so the
// caller must.
func (cs *clientStream) register(c *streamCall) (id uint64, lead bool, err error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.err != nil {
		return 0, false, cs.err
	}
	cs.nextID++
	cs.pending[cs.nextID] = c
	lead, cs.leading = !cs.leading, true
	return cs.nextID, lead, nil
}

// lead reads answers until the one for id arrives, or ctx ends (the read
// is cut short by a deadline; the frame reader keeps what it had read).
func (cs *clientStream) lead(ctx context.Context, id uint64, c *streamCall) (streamAnswer, error) {
	if ctx.Done() != nil { // a ctx that can end cuts the read short
		stop := context.AfterFunc(ctx, func() { _ = cs.conn.SetReadDeadline(time.Unix(1, 0)) })
		defer stop()
	}
	for {
		p, err := cs.frames.next(maxAnswer)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if ctx.Err() != nil {
				return streamAnswer{}, cs.abandon(c, true, ctx.Err())
			}
			_ = cs.conn.SetReadDeadline(time.Time{}) // left by an earlier reader's ctx
			continue
		}
		if err != nil {
			return streamAnswer{}, cs.fail(fmt.Errorf("%w: %v", errStreamDown, err))
		}
		if a, mine, err := cs.route(p, id); mine || err != nil {
			return a, err
		}
	}
}

// route hands one answer to its call; mine reports that it is id's, and
// then the reading has passed on. An answer that is not the protocol's
// breaks the stream: every waiting call fails closed with ErrUnavailable.
func (cs *clientStream) route(p []byte, id uint64) (a streamAnswer, mine bool, err error) {
	aid, status, body, err := parseAnswer(p)
	if err == nil && aid == 0 {
		err = fmt.Errorf("the coordinator closed the stream: HTTP %d %s", status, body)
	}
	cs.mu.Lock()
	c, ok := cs.pending[aid]
	if err == nil && !ok {
		err = fmt.Errorf("answer to request %d, which is not waiting", aid)
	}
	if err != nil {
		cs.mu.Unlock()
		return a, false, cs.fail(fmt.Errorf("%w: garbled stream: %v", ErrUnavailable, err))
	}
	delete(cs.pending, aid)
	a = streamAnswer{status: status, body: body}
	if aid == id {
		cs.passLead()
	} else {
		c.turn <- callTurn{answer: a} // its only message: buffered, never full
	}
	cs.mu.Unlock()
	return a, aid == id, nil
}

// abandon gives up c for ctx: it stays pending, so its answer is known
// when it comes, and the reading passes on if c had it (leading) or was
// just given it.
func (cs *clientStream) abandon(c *streamCall, leading bool, err error) error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c.abandoned = true
	if !leading {
		select {
		case t := <-c.turn:
			leading = t.lead
		default:
		}
	}
	if leading {
		cs.passLead()
	}
	return err
}

// passLead gives the reading to a call still waiting, or leaves nobody
// reading. Call with cs.mu held.
func (cs *clientStream) passLead() {
	for _, c := range cs.pending {
		if !c.abandoned {
			c.turn <- callTurn{lead: true}
			return
		}
	}
	cs.leading = false
}

// fail breaks the stream: every waiting call gets err, the connection is
// closed, and later calls open another stream. It returns the stream's
// error.
func (cs *clientStream) fail(err error) error {
	cs.mu.Lock()
	if cs.err == nil {
		cs.err = err
	}
	for id, c := range cs.pending {
		select {
		case c.turn <- callTurn{answer: streamAnswer{err: cs.err}}:
		default: // it holds the reading and sees the closed connection
		}
		delete(cs.pending, id)
	}
	cs.leading = false
	err = cs.err
	cs.mu.Unlock()
	cs.conn.Close()
	return err
}

// close closes the connection.
func (cs *clientStream) close() {
	cs.fail(fmt.Errorf("%w: client closed", errStreamDown))
}
