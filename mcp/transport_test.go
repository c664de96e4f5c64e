package mcp_test

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate/mcp"
)

// readCloser is a reader with the closer of the pipe under it.
type readCloser struct {
	io.Reader
	io.Closer
}

type echoIn struct {
	Text string `json:"text"`
}

type echoOut struct {
	Length int `json:"length"`
}

// echoSession connects the SDK's client over two pipes to an SDK server
// with one tool, echo, that answers its text's length. The server reads
// through a LineTransport from what wrap makes of its pipe.
func echoSession(t *testing.T, wrap func(io.Reader) io.Reader) *sdk.ClientSession {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	srv := sdk.NewServer(&sdk.Implementation{Name: "echo"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo"}, func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
		return nil, echoOut{Length: len(in.Text)}, nil
	})
	ctx := context.Background()
	st := &mcp.LineTransport{Reader: readCloser{wrap(toServer), toServer}, Writer: fromServer}
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, &sdk.IOTransport{Reader: toClient, Writer: fromClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

func callEcho(t *testing.T, cs *sdk.ClientSession, s string) int {
	t.Helper()
	var out echoOut
	res := call(t, cs, "echo", map[string]any{"text": s}, &out)
	if res.IsError {
		t.Fatalf("echo(%d bytes) = error %s", len(s), text(res))
	}
	return out.Length
}

// TestLineTransportSession: the SDK's client and server hold a session
// over the transport, whether a message comes in one read or byte by
// byte, and a message far larger than the reader's buffer arrives whole.
func TestLineTransportSession(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole reads", func(r io.Reader) io.Reader { return r }},
		{"one byte per read", iotest.OneByteReader},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := echoSession(t, tc.wrap)
			for _, n := range []int{0, 10, 100 << 10} {
				if got := callEcho(t, cs, strings.Repeat("x", n)); got != n {
					t.Errorf("echo of %d bytes = length %d", n, got)
				}
			}
		})
	}
}

// connectLines returns a LineTransport's connection reading input, and
// what it writes.
func connectLines(t *testing.T, input string, limit int) (sdk.Connection, *strings.Builder) {
	t.Helper()
	var out strings.Builder
	tr := &mcp.LineTransport{Reader: io.NopCloser(strings.NewReader(input)), Writer: nopWriteCloser{&out}, MaxLineLength: limit}
	c, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, &out
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// TestLineTransportDecodes: each well-formed line decodes to what the
// SDK's own decoder makes of it; blank lines and a CRLF are skipped; the
// stream's end is io.EOF, also after a last line without a newline, once
// the calls read are answered.
func TestLineTransportDecodes(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"s-1","method":"ping","params":null}`,
		`{"jsonrpc":"2.0","id":7,"result":{"roots":[]}}`,
		`{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"no such method","data":{"m":"x"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":""}`,
	}
	input := "\n  \n" + strings.Join(lines[:3], "\n") + "\r\n\n" + strings.Join(lines[3:], "\n")
	c, _ := connectLines(t, input, 0)
	for _, line := range lines {
		want, err := jsonrpc.DecodeMessage([]byte(line))
		if err != nil {
			t.Fatalf("the SDK's DecodeMessage(%s) = %v", line, err)
		}
		got, err := c.Read(context.Background())
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Read of %s = %#v, %v; want %#v", line, got, err, want)
		}
	}
	// The end waits for the calls read (1, "s-1" and 2) to be answered.
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if msg, err := c.Read(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Read at the end, its calls unanswered = %#v, %v; want it to wait", msg, err)
	}
	for _, id := range []any{float64(1), "s-1", float64(2)} {
		if err := c.Write(context.Background(), &jsonrpc.Response{ID: mustID(t, id), Result: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if msg, err := c.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("Read at the end = %#v, %v; want io.EOF", msg, err)
	}
}

// TestLineTransportRefuses: a line that is not one JSON-RPC message is a
// Read error naming what was wrong, where the SDK's decoder refuses it
// too; the session ends there, as over the SDK's transport.
func TestLineTransportRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
		limit            int
	}{
		{"not json", `{"jsonrpc":"2.0",`, "decoding json-rpc message", 0},
		{"not an object", `"ping"`, "decoding json-rpc message", 0},
		{"no version", `{"id":1,"method":"ping"}`, `want "2.0"`, 0},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, `want "2.0"`, 0},
		{"version in other case", `{"JSONRPC":"2.0","id":1,"method":"ping"}`, `want "2.0"`, 0},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":3}`, `"method"`, 0},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, "invalid ID type", 0},
		{"neither method nor id", `{"jsonrpc":"2.0","result":{}}`, "neither a method nor an id", 0},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "batches are not supported", 0},
		{"too long", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "longer than the line limit", 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.limit == 0 {
				if _, err := jsonrpc.DecodeMessage([]byte(tc.line)); err == nil && tc.name != "batch" {
					t.Fatalf("the SDK's DecodeMessage(%s) accepts it", tc.line)
				}
			}
			c, _ := connectLines(t, tc.line+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n", tc.limit)
			msg, err := c.Read(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read of %s = %#v, %v; want an error with %q", tc.line, msg, err, tc.want)
			}
			if tc.limit > 0 && !errors.Is(err, mcp.ErrLineTooLong) {
				t.Errorf("Read of a long line = %v, want ErrLineTooLong", err)
			}
			if msg, err := c.Read(context.Background()); err == nil {
				t.Errorf("Read after the error = %#v; want the reading ended", msg)
			}
		})
	}
}

// TestLineTransportClose: Close ends a Read waiting for input, and the
// reading goroutine with it (TestMain checks for leaks).
func TestLineTransportClose(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	c, err := (&mcp.LineTransport{Reader: r, Writer: nopWriteCloser{io.Discard}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		done <- err
	}()
	if err := c.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, io.EOF) {
			t.Errorf("Read after Close = %v, want io.EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read still waits after Close")
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// TestLineTransportWrite: each message is written as one line.
func TestLineTransportWrite(t *testing.T) {
	c, out := connectLines(t, "", 0)
	for _, id := range []int64{1, 2} {
		msg := &jsonrpc.Response{ID: mustID(t, float64(id)), Result: []byte(`{"a":"b\nc"}`)}
		if err := c.Write(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{"a":"b\nc"}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{"a":"b\nc"}}` + "\n"
	if out.String() != want {
		t.Errorf("written %q, want %q", out.String(), want)
	}
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// eofReader closes eof when its reader has reported the end.
type eofReader struct {
	io.Reader
	eof  chan struct{}
	once sync.Once
}

func (r *eofReader) Read(p []byte) (int, error) {
	n, err := r.Reader.Read(p)
	if errors.Is(err, io.EOF) {
		r.once.Do(func() { close(r.eof) })
	}
	return n, err
}

func (*eofReader) Close() error { return nil }

// TestLineTransportAnswersBeforeTheEnd: a client that writes its calls
// and closes its end (`printf ... | leasegate mcp`) gets an answer to
// every call, those still running when the end was read included, and
// none for a call it cancelled; then the session ends.
func TestLineTransportAnswersBeforeTheEnd(t *testing.T) {
	in := &eofReader{Reader: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hand","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"text":"ab"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait","arguments":{"text":"abc"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"block","arguments":{"text":"x"}}}
{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}
`), eof: make(chan struct{})}
	srv := sdk.NewServer(&sdk.Implementation{Name: "wait"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "wait"}, func(_ context.Context, _ *sdk.CallToolRequest, in2 echoIn) (*sdk.CallToolResult, echoOut, error) {
		<-in.eof // still running when the end is read
		return nil, echoOut{Length: len(in2.Text)}, nil
	})
	sdk.AddTool(srv, &sdk.Tool{Name: "block"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ echoIn) (*sdk.CallToolResult, echoOut, error) {
		<-ctx.Done() // answered only by its cancellation
		return nil, echoOut{}, ctx.Err()
	})
	// The connection serializes its writes, and out is read once the
	// session has ended.
	var out strings.Builder
	ss, err := srv.Connect(t.Context(), &mcp.LineTransport{Reader: in, Writer: nopWriteCloser{&out}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = ss.Close()
		<-done
		t.Fatalf("the session did not end within 10 s of its input's end; written:\n%s", out.String())
	}
	for _, want := range []string{`"id":2,"result":{"content":[{"type":"text","text":"{\"length\":2}"}]`, `"id":3,"result":{"content":[{"type":"text","text":"{\"length\":3}"}]`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %s in what the server wrote:\n%s", want, out.String())
		}
	}
}
