package api_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/api"
)

// TestStalledFrameClosed: a stream frame whose header came and whose body
// stalls closes its connection after api.FrameTimeout, while an idle
// stream (no frame begun) stays open and answers.
func TestStalledFrameClosed(t *testing.T) {
	s := serve(t)
	stalled, sbr := upgrade(t, "unix", s.sock)
	idle, ibr := upgrade(t, "unix", s.sock)
	_ = stalled.SetReadDeadline(time.Now().Add(api.FrameTimeout + 20*time.Second))
	write(t, stalled, binary.BigEndian.AppendUint32(nil, 1<<20))
	start := time.Now()
	if _, err := io.ReadAll(sbr); err != nil {
		t.Fatalf("stalled frame: connection not closed within %s: %v", api.FrameTimeout+20*time.Second, err)
	}
	if took := time.Since(start); took < api.FrameTimeout-time.Second {
		t.Fatalf("stalled frame closed after %s, before the %s it is allowed", took, api.FrameTimeout)
	}
	_ = idle.SetReadDeadline(time.Now().Add(10 * time.Second))
	write(t, idle, requestFrame(7, "POST /v1/owners/alice/heartbeat", ""))
	if a := readAnswer(t, ibr); a.id != 7 || a.status != 200 {
		t.Fatalf("idle stream after %s: answer %+v, want id 7 status 200", api.FrameTimeout, a)
	}
}

// TestConnsPerPeerCapped: one process holds at most api.MaxConnsPerPeer
// connections; the next is closed at once, and a freed place is taken
// again.
func TestConnsPerPeerCapped(t *testing.T) {
	s := serve(t)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	// The test's client holds connections too; fill up to the cap.
	for range api.MaxConnsPerPeer + 8 {
		c, err := net.Dial("unix", s.sock)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	// Connections are accepted in order: the ones over the cap are the
	// last, and each reads EOF once the server has closed it. Count them
	// from the end, up to the first that stays open.
	closed := 0
	for i := len(conns) - 1; i >= 0; i-- {
		_ = conns[i].SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := conns[i].Read(make([]byte, 1)); err != io.EOF && !isReset(err) {
			break
		}
		closed++
	}
	if closed < 8 {
		t.Fatalf("%d of %d connections from one process closed, want at least 8 over the cap of %d", closed, len(conns), api.MaxConnsPerPeer)
	}
}

func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }
