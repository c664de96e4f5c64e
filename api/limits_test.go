package api_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"path/filepath"
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
	if closed := closedAtOnce(conns); closed < 8 {
		t.Fatalf("%d of %d connections from one process closed, want at least 8 over the cap of %d", closed, len(conns), api.MaxConnsPerPeer)
	}
}

// closedAtOnce counts the connections the server closed as soon as it
// accepted them. Connections are accepted in order: the ones over a cap
// are the last, and each reads EOF once the server has closed it. They
// are counted from the end, up to the first that stays open.
func closedAtOnce(conns []net.Conn) int {
	closed := 0
	for i := len(conns) - 1; i >= 0; i-- {
		_ = conns[i].SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := conns[i].Read(make([]byte, 1)); err != io.EOF && !isReset(err) {
			break
		}
		closed++
	}
	return closed
}

// TestLimitConns: a server whose process's open-files limit leaves room
// for 16 connections says so in its health, and lets one process hold an
// eighth of them, at least 4, not the 128 of the full cap: one process
// could otherwise take every place.
func TestLimitConns(t *testing.T) {
	s := serve(t)
	s.srv = api.NewServer(s.c, adminToken, api.Health{Version: "test"}, nil)
	s.srv.LimitConns(16, 64)
	sock := filepath.Join(socketDir(t), "limited.sock")
	s.listen(t, "unix", sock, false)
	h, err := newClient(t, api.ClientConfig{Socket: sock}).Health(t.Context())
	if err != nil || h.MaxConns != 16 || h.FilesLimit != 64 {
		t.Fatalf("Health() = %+v, %v; want max_conns 16, files_limit 64", h, err)
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 12 {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if closed := closedAtOnce(conns); closed < 8 {
		t.Fatalf("%d of 12 connections from one process closed under a cap of 16, want at least 8 (4 per process)", closed)
	}
}

func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }
