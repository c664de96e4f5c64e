package api

import (
	"bufio"
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// TestFrameReaderResumes: a read cut short by a deadline in the middle of
// a frame keeps what it read, and the next read completes the frame.
func TestFrameReaderResumes(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	frame := appendAnswer(nil, 7, 200, []byte(`{"outcome":"granted"}`))
	fr := &frameReader{r: bufio.NewReader(client)}
	for _, cut := range []int{2, 9, len(frame) - 1} { // in the length, the header, the body
		written := make(chan error, 1)
		go func() { _, err := server.Write(frame[:cut]); written <- err }()
		_ = client.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if _, err := fr.next(maxAnswer); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("next() with %d of %d bytes sent = %v, want a deadline error", cut, len(frame), err)
		}
		if err := <-written; err != nil { // the pipe took all of the first part
			t.Fatal(err)
		}
		_ = client.SetReadDeadline(time.Time{})
		go func() { _, err := server.Write(frame[cut:]); written <- err }()
		p, err := fr.next(maxAnswer)
		if err != nil {
			t.Fatalf("next() after the rest was sent = %v", err)
		}
		if id, status, body, err := parseAnswer(p); err != nil || id != 7 || status != 200 || string(body) != `{"outcome":"granted"}` {
			t.Fatalf("frame read in two parts (cut at %d) = %d %d %s, %v", cut, id, status, body, err)
		}
		if err := <-written; err != nil {
			t.Fatal(err)
		}
	}
}

// TestFrameReaderRefusesOversize: a frame longer than the limit is an
// error before its payload is read.
func TestFrameReaderRefusesOversize(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	go func() { _, _ = server.Write([]byte{0, 0, 1, 0}) }()
	var tooLarge *frameTooLargeError
	if _, err := (&frameReader{r: bufio.NewReader(client)}).next(255); !errors.As(err, &tooLarge) || tooLarge.size != 256 {
		t.Fatalf("next() of a 256-byte frame with limit 255 = %v, want a frameTooLargeError", err)
	}
}

// TestAnswerHeadInPlace: an answer encoded after a reserved head and the
// head filled in is the frame appendAnswer writes.
func TestAnswerHeadInPlace(t *testing.T) {
	body := []byte(`{"outcome":"granted"}`)
	frame := append(make([]byte, frameLen+answerHead), body...)
	putAnswerHead(frame, 1<<40+3, 409)
	if want := appendAnswer(nil, 1<<40+3, 409, body); string(frame) != string(want) {
		t.Errorf("putAnswerHead frame = %x, want %x", frame, want)
	}
}

// deadlineConn counts the read deadlines set on a connection.
type deadlineConn struct {
	net.Conn
	set int
}

func (c *deadlineConn) SetReadDeadline(time.Time) error { c.set++; return nil }

// TestBufferedFrameSetsNoDeadline: a frame that arrived whole is taken
// without setting and clearing a read deadline (two runtime timer changes
// per request); one whose bytes are still to come gets one.
func TestBufferedFrameSetsNoDeadline(t *testing.T) {
	whole := appendRequest(nil, 1, "POST /v1/check", []byte(`{}`))
	for _, tc := range []struct {
		name string
		size int // bytes of the reader's buffer
		want int // read deadlines set and cleared
	}{
		{name: "whole in the buffer", size: 4096, want: 0},
		{name: "longer than the buffer", size: 16, want: 2},
	} {
		client, server := net.Pipe()
		go func() { _, _ = client.Write(whole); client.Close() }()
		conn := &deadlineConn{Conn: server}
		sc := &serverStream{conn: conn, r: bufio.NewReaderSize(server, tc.size)}
		p, err := sc.readFrame(t.Context())
		if err != nil {
			t.Fatalf("%s: readFrame: %v", tc.name, err)
		}
		frameMemory.give(int64(len(p)))
		if id, target, _, err := parseRequest(p); err != nil || id != 1 || target != "POST /v1/check" {
			t.Errorf("%s: parseRequest = %d, %q, %v; want 1, POST /v1/check", tc.name, id, target, err)
		}
		if conn.set != tc.want {
			t.Errorf("%s: %d read deadlines set, want %d", tc.name, conn.set, tc.want)
		}
		server.Close()
	}
}

// TestMemoryGiveAllocatesNothing: giving frame memory back with no one
// waiting for it, once a request, allocates nothing.
func TestMemoryGiveAllocatesNothing(t *testing.T) {
	b := newMemoryBudget(1 << 10)
	if n := testing.AllocsPerRun(100, func() {
		if !b.tryTake(100) {
			t.Fatal("tryTake(100) of 1024 free = false")
		}
		b.give(100)
	}); n != 0 {
		t.Errorf("take and give: %v allocations, want 0", n)
	}
}
