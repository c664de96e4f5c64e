package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// LineTransport is an sdk.Transport that speaks newline-delimited
// JSON-RPC over a reader and a writer, as the SDK's StdioTransport does,
// reading every message into one buffer that is kept for the next. The
// SDK's own transport decodes each line three times (as a batch, as a
// message, its method), each through a new JSON decoder with a 32 KiB
// buffer: 0.1 MiB of garbage per message before a tool runs.
//
// A message is one line, as the MCP stdio transport requires (messages
// "MUST NOT contain embedded newlines"); blank lines are skipped. A line
// that is not one JSON-RPC message ends the session with an error naming
// what was wrong, as the SDK's transport ends it. JSON-RPC batches (which
// MCP dropped in 2025-06-18 and no known client sends) are refused the
// same way: answering one needs the session's protocol version, which the
// SDK tells only its own transports.
//
// The end of the input ends the session once every call read before it
// is answered (or cancelled by the client): a client that writes its
// requests and closes its end, as `printf ... | leasegate mcp` does, gets
// every answer. The SDK cancels the calls still in flight when a read
// fails, so the transport holds the end back until then.
type LineTransport struct {
	// Reader is where messages come from; it is closed with the session.
	Reader io.ReadCloser
	// Writer is where messages go; it is closed with the session.
	Writer io.WriteCloser
	// MaxLineLength bounds one message in bytes. Zero means the SDK's
	// sdk.DefaultMaxLineLength (16 MiB); negative means no bound.
	MaxLineLength int
}

// StdioTransport is the LineTransport over this process's standard input
// and output; closing the session closes standard input only.
func StdioTransport() *LineTransport {
	return &LineTransport{Reader: os.Stdin, Writer: nopWriteCloser{os.Stdout}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// lineReadSize is the reader's initial buffer: a leases_check request is
// a few hundred bytes, and the line buffer grows past it once for a
// larger message and then stays grown.
const lineReadSize = 4096

// Connect starts the read of t.Reader and returns the connection.
func (t *LineTransport) Connect(context.Context) (sdk.Connection, error) {
	limit := t.MaxLineLength
	if limit == 0 {
		limit = sdk.DefaultMaxLineLength
	}
	c := &lineConn{r: t.Reader, w: t.Writer, incoming: make(chan jsonrpc.Message),
		readDone: make(chan struct{}), closed: make(chan struct{})}
	go c.readLoop(bufio.NewReaderSize(t.Reader, lineReadSize), limit)
	return c, nil
}

// lineConn is the connection a LineTransport makes.
type lineConn struct {
	r io.ReadCloser
	w io.WriteCloser
	// incoming carries what readLoop decoded; it is unbuffered, so the
	// loop reads no further than one message ahead of Read. readDone is
	// closed when the loop ends, after it set readErr, the error that
	// ended it (nil when Close did).
	incoming chan jsonrpc.Message
	readDone chan struct{}
	readErr  error
	// writeMu serializes Write, which the SDK calls concurrently; out is
	// the encoded message and its newline, reused under writeMu.
	writeMu sync.Mutex
	out     []byte
	// closed is closed by Close, which ends a waiting Read and readLoop.
	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
	// calls are the calls read and not yet answered.
	calls pendingCalls
}

// pendingCalls are the ids of the calls a connection has read and not
// yet answered.
type pendingCalls struct {
	mu  sync.Mutex
	ids map[jsonrpc.ID]struct{}
	// answered, once made by answeredAll, is closed when ids empties.
	answered chan struct{}
}

func (p *pendingCalls) add(id jsonrpc.ID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids == nil {
		p.ids = map[jsonrpc.ID]struct{}{}
	}
	p.ids[id] = struct{}{}
}

func (p *pendingCalls) done(id jsonrpc.ID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.ids, id)
	if len(p.ids) == 0 && p.answered != nil {
		close(p.answered)
		p.answered = nil
	}
}

// answeredAll returns a channel that is closed once every call added is
// done.
func (p *pendingCalls) answeredAll() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if p.answered == nil {
		p.answered = make(chan struct{})
	}
	return p.answered
}

// track records a call msg makes, before the SDK sees it (so its answer
// cannot come first), and forgets one the client cancels: the SDK sends
// no answer for it.
func (p *pendingCalls) track(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	switch {
	case !ok:
	case req.ID.IsValid():
		p.add(req.ID)
	case req.Method == "notifications/cancelled":
		var params struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &params) == nil {
			if id, err := jsonrpc.MakeID(params.RequestID); err == nil && id.IsValid() {
				p.done(id)
			}
		}
	}
}

var _ sdk.Connection = (*lineConn)(nil)

// ErrLineTooLong is returned (wrapped) by a connection's Read when one
// message is longer than the transport's MaxLineLength.
var ErrLineTooLong = errors.New("json-rpc message longer than the line limit")

// readLoop reads and decodes one line at a time until a read or decode
// fails or the connection is closed. It runs in a goroutine of its own
// so that Close ends a Read even where closing the reader does not end
// a blocked read of it (standard input, as for the SDK's transport); it
// then ends when that read returns.
func (c *lineConn) readLoop(br *bufio.Reader, limit int) {
	defer close(c.readDone)
	var line []byte
	for {
		var msg jsonrpc.Message
		var err error
		line, err = readLine(br, line[:0], limit)
		if err == nil {
			trimmed := bytes.TrimSpace(line)
			if len(trimmed) == 0 {
				continue
			}
			msg, err = decodeLine(trimmed)
		}
		if errors.Is(err, io.EOF) {
			// The calls read so far are answered before the session ends.
			select {
			case <-c.calls.answeredAll():
			case <-c.closed:
			}
		}
		if err != nil {
			select {
			case <-c.closed: // Close made the read fail
			default:
				c.readErr = err
			}
			return
		}
		c.calls.track(msg)
		select {
		case c.incoming <- msg:
		case <-c.closed:
			return
		}
	}
}

// readLine appends the next line of br, without its newline, to buf. A
// last line without a newline is a line; EOF before any byte is io.EOF.
func readLine(br *bufio.Reader, buf []byte, limit int) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		n := len(buf) + len(frag)
		if err == nil {
			n-- // the newline is not part of the message
		}
		if limit > 0 && n > limit {
			return buf, fmt.Errorf("%w of %d bytes", ErrLineTooLong, limit)
		}
		buf = append(buf, frag...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil
		default:
			return buf, err
		}
	}
}

// decodeLine decodes one JSON-RPC message (a line without its blanks)
// as the SDK's jsonrpc.DecodeMessage does, with exact key names and the
// same checks, but through encoding/json, which decodes from the line
// itself instead of copying it into a new 32 KiB buffer, and copies what
// it keeps, so the line's buffer can be reused.
func decodeLine(line []byte) (jsonrpc.Message, error) {
	if line[0] == '[' {
		return nil, errors.New("json-rpc batches are not supported: send one message per line")
	}
	var wire map[string]json.RawMessage
	if err := json.Unmarshal(line, &wire); err != nil {
		return nil, fmt.Errorf("decoding json-rpc message: %w", err)
	}
	var version string
	if err := unmarshalField(wire, "jsonrpc", &version); err != nil || version != "2.0" {
		return nil, fmt.Errorf("decoding json-rpc message: \"jsonrpc\" is %q, want \"2.0\"", wire["jsonrpc"])
	}
	var rawID any
	if err := unmarshalField(wire, "id", &rawID); err != nil {
		return nil, err
	}
	id, err := jsonrpc.MakeID(rawID)
	if err != nil {
		return nil, fmt.Errorf("decoding json-rpc message: %w", err)
	}
	if _, ok := wire["method"]; ok {
		req := &jsonrpc.Request{ID: id, Params: wire["params"]}
		return req, unmarshalField(wire, "method", &req.Method)
	}
	return decodeResponse(wire, id)
}

// decodeResponse is decodeLine's answer for a message without a method.
func decodeResponse(wire map[string]json.RawMessage, id jsonrpc.ID) (jsonrpc.Message, error) {
	if !id.IsValid() {
		return nil, errors.New("decoding json-rpc message: neither a method nor an id")
	}
	resp := &jsonrpc.Response{ID: id, Result: wire["result"]}
	var wireErr *jsonrpc.Error
	if err := unmarshalField(wire, "error", &wireErr); err != nil {
		return nil, err
	}
	if wireErr != nil { // not a typed nil in the error
		resp.Error = wireErr
	}
	return resp, nil
}

// unmarshalField decodes wire[key], when present, into v.
func unmarshalField(wire map[string]json.RawMessage, key string, v any) error {
	raw, ok := wire[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decoding json-rpc message: %q: %w", key, err)
	}
	return nil
}

// Read returns the next message, the error that ended the reading (every
// time, once it has), or io.EOF once the connection is closed.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case msg := <-c.incoming:
		return msg, nil
	case <-c.readDone:
		return nil, cmpErr(c.readErr, io.EOF)
	case <-c.closed:
		return nil, io.EOF
	}
}

// cmpErr returns err, or else fallback.
func cmpErr(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}

// Write sends msg as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding json-rpc message: %w", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.out = append(append(c.out[:0], data...), '\n')
	_, err = c.w.Write(c.out)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.calls.done(resp.ID)
	}
	return err
}

// Close closes the reader and the writer; it may be called more than
// once and concurrently with Read.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed) // first, so that readLoop sees the read it ends as closed
		c.closeErr = errors.Join(c.r.Close(), c.w.Close())
	})
	return c.closeErr
}

// SessionID is empty: a stream carries one session.
func (c *lineConn) SessionID() string { return "" }
