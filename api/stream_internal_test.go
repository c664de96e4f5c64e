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
