package api

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/leasegate/leasegate/gate"
)

// maxInFlight bounds the requests one stream runs at once; past it the
// server stops reading the connection until a worker is free.
const maxInFlight = 256

// upgrade switches GET /v1/stream to the stream protocol. On TCP the
// bearer token has been checked by Handler; the stream's calls then run
// with the rights of the upgrade request, as its HTTP requests would.
func (s *Server) upgrade(w http.ResponseWriter, r *http.Request) {
	if !headerHas(r.Header, "Connection", "upgrade") || !strings.EqualFold(r.Header.Get("Upgrade"), StreamProtocol) {
		writeError(w, &gate.DeniedError{Reason: gate.ReasonInputInvalid,
			Message: "GET /v1/stream needs Connection: Upgrade and Upgrade: " + StreamProtocol})
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		writeError(w, &gate.DeniedError{Reason: gate.ReasonNotFound, Message: "this listener cannot switch protocols"})
		return
	}
	conn, brw, err := hj.Hijack()
	if err != nil {
		s.log.Debug("upgrade failed", "error", err)
		return
	}
	set, _ := r.Context().Value(streamSetKey{}).(*streamSet)
	if !set.add(conn) {
		conn.Close()
		return
	}
	defer set.done(conn)
	_ = conn.SetDeadline(time.Time{})
	if _, err := brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + StreamProtocol + "\r\n\r\n"); err != nil || brw.Flush() != nil {
		conn.Close()
		return
	}
	sc := &serverStream{s: s, conn: conn, r: brw.Reader, admin: s.adminOf(r), jobs: make(chan streamJob), idle: make(chan struct{})}
	sc.serve(r.Context())
}

// headerHas reports whether a comma-separated header lists token.
func headerHas(h http.Header, key, token string) bool {
	for _, v := range h.Values(key) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// serverStream is one upgraded connection. Its requests run on workers
// that stay for the connection's life, as many as have been busy at once
// (up to maxInFlight): a worker keeps the stack that decoding and
// deciding grew, where a goroutine per request would grow it every time.
type serverStream struct {
	s       *Server
	conn    net.Conn
	r       *bufio.Reader
	admin   string         // the admin the upgrade request proved, or ""
	jobs    chan streamJob // to an idle worker
	idle    chan struct{}  // closed when no more jobs come
	workers int
	wmu     sync.Mutex // one answer frame at a time
	calls   sync.WaitGroup
}

// streamJob is one request read from the connection.
type streamJob struct {
	id     uint64
	target string
	body   []byte
	mem    int64 // taken from frameMemory, given back once answered
}

// serve reads requests until the connection ends or a frame cannot be
// read, runs each on a worker, and answers in completion order.
// A bad frame is answered (id 0) after every request before it, then the
// connection is closed: nothing of the bad frame is carried out.
func (sc *serverStream) serve(ctx context.Context) {
	defer sc.conn.Close()
	bad := sc.readLoop(ctx)
	close(sc.idle)
	sc.calls.Wait()
	if bad != nil {
		sc.s.log.Debug("stream closed", "error", bad)
		sc.answer(0, bad)
	}
}

// readLoop dispatches requests until the connection ends (nil) or a frame
// does not follow the protocol (its error).
func (sc *serverStream) readLoop(ctx context.Context) error {
	for {
		p, err := sc.readFrame(ctx)
		var tooLarge *frameTooLargeError
		if errors.As(err, &tooLarge) {
			return &gate.DeniedError{Reason: CodeTooLarge, Message: tooLarge.Error()}
		}
		if err != nil {
			return nil // the client went away, maybe mid-frame: nothing to answer
		}
		id, target, body, err := parseRequest(p)
		if err != nil {
			frameMemory.give(int64(len(p)))
			return &gate.DeniedError{Reason: gate.ReasonInputInvalid, Message: err.Error()}
		}
		if !sc.dispatch(ctx, streamJob{id: id, target: target, body: body, mem: int64(len(p))}) {
			frameMemory.give(int64(len(p)))
			return nil
		}
	}
}

// dispatch hands j to an idle worker, or starts one, or waits for one
// when maxInFlight are busy; false if ctx ended first.
func (sc *serverStream) dispatch(ctx context.Context, j streamJob) bool {
	select {
	case sc.jobs <- j:
		return true
	default:
	}
	if sc.workers < maxInFlight {
		sc.workers++
		sc.calls.Add(1)
		go sc.work(ctx, j)
		return true
	}
	select {
	case sc.jobs <- j:
		return true
	case <-ctx.Done():
		return false
	}
}

// work runs jobs until the connection is done.
func (sc *serverStream) work(ctx context.Context, j streamJob) {
	defer sc.calls.Done()
	for {
		sc.run(ctx, j)
		frameMemory.give(j.mem)
		select {
		case j = <-sc.jobs:
		case <-sc.idle:
			return
		}
	}
}

func (sc *serverStream) run(ctx context.Context, j streamJob) {
	id, target, body := j.id, j.target, j.body
	v, err := sc.s.call(ctx, sc.admin, target, body)
	if err != nil {
		sc.s.log.Debug("request failed", "target", target, "error", err)
		sc.answer(id, err)
		return
	}
	sc.reply(id, http.StatusOK, v)
}

// answer sends an error answer.
func (sc *serverStream) answer(id uint64, err error) {
	st, b := errorBody(err)
	sc.reply(id, st, b)
}

// reply sends one answer frame; a connection that is gone is not an
// error here (the read loop sees it).
func (sc *serverStream) reply(id uint64, status int, v any) {
	bp := answerBufs.Get().(*[]byte)
	frame, err := appendAnswerBody((*bp)[:frameLen+answerHead], v)
	if err == nil {
		putAnswerHead(frame, id, status)
	} else {
		st, body := answerError(err)
		frame = appendAnswer(frame[:0], id, st, body)
	}
	sc.wmu.Lock()
	_, _ = sc.conn.Write(frame)
	sc.wmu.Unlock()
	if cap(frame) <= maxPooledAnswer {
		*bp = frame
		answerBufs.Put(bp)
	}
}

// answerBufs are buffers for answer frames, given back once written: an
// answer is made and written per request, and its buffer was most of the
// stream's garbage.
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxPooledAnswer is the largest answer buffer kept for reuse; a large
// answer (a status of many leases) is rare and its buffer left to the GC.
const maxPooledAnswer = 64 << 10

// streamSetKey carries a Serve call's streamSet in request contexts.
type streamSetKey struct{}

// streamSet tracks the upgraded connections of one Serve call, which
// http.Server.Shutdown no longer sees, so that Serve can close them and
// wait for their goroutines. A nil set tracks nothing.
type streamSet struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

func newStreamSet() *streamSet { return &streamSet{conns: make(map[net.Conn]struct{})} }

// add tracks conn; false once the set is closed.
func (ss *streamSet) add(c net.Conn) bool {
	if ss == nil {
		return true
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return false
	}
	ss.conns[c] = struct{}{}
	ss.wg.Add(1)
	return true
}

func (ss *streamSet) done(c net.Conn) {
	if ss == nil {
		return
	}
	ss.mu.Lock()
	delete(ss.conns, c)
	ss.mu.Unlock()
	ss.wg.Done()
}

// close closes every stream and waits for their requests to end.
func (ss *streamSet) close() {
	ss.mu.Lock()
	ss.closed = true
	for c := range ss.conns {
		c.Close()
	}
	ss.mu.Unlock()
	ss.wg.Wait()
}
