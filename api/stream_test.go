package api_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/store"
	"github.com/leasegate/leasegate/store/storetest"
)

// The frame layout of api.StreamProtocol, written out here as a second,
// independent implementation of the documented format.

func requestFrame(id uint64, target, body string) []byte {
	p := binary.BigEndian.AppendUint64(nil, id)
	p = binary.BigEndian.AppendUint16(p, uint16(len(target)))
	p = append(append(p, target...), body...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(p))), p...)
}

// answer is one answer frame.
type answer struct {
	id     uint64
	status int
	body   string
}

func readAnswer(t *testing.T, r *bufio.Reader) answer {
	t.Helper()
	a, err := tryReadAnswer(r)
	if err != nil {
		t.Fatalf("reading an answer frame: %v", err)
	}
	return a
}

func tryReadAnswer(r *bufio.Reader) (answer, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return answer{}, err
	}
	p := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(r, p); err != nil {
		return answer{}, err
	}
	if len(p) < 10 {
		return answer{}, fmt.Errorf("answer frame of %d bytes", len(p))
	}
	return answer{id: binary.BigEndian.Uint64(p), status: int(binary.BigEndian.Uint16(p[8:])), body: string(p[10:])}, nil
}

// code is the error code of an error answer's body.
func (a answer) code() gate.Reason {
	var b api.ErrorBody
	_ = json.Unmarshal([]byte(a.body), &b)
	return b.Error.Code
}

// upgrade opens a stream on the unix socket sock by hand.
func upgrade(t *testing.T, network, addr string, header ...string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	req := "GET /v1/stream HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: " + api.StreamProtocol + "\r\n"
	for i := 0; i+1 < len(header); i += 2 {
		req += header[i] + ": " + header[i+1] + "\r\n"
	}
	if _, err := io.WriteString(conn, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // a missing answer fails, not hangs
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("upgrade answer: %v", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("upgrade answer %d %s, want 101", resp.StatusCode, body)
	}
	return conn, br
}

func mutateBody(owner string, paths ...string) string {
	b, _ := json.Marshal(leasegate.MutateRequest{Owner: owner, Op: "write", Paths: paths})
	return string(b)
}

func write(t *testing.T, conn net.Conn, frames ...[]byte) {
	t.Helper()
	var all []byte
	for _, f := range frames {
		all = append(all, f...)
	}
	if _, err := conn.Write(all); err != nil {
		t.Fatal(err)
	}
}

// TestStreamPipelined: many requests written at once on one stream are
// each answered once, under their id, with the answer the HTTP API gives
// for the same request (status and body).
func TestStreamPipelined(t *testing.T) {
	s := serve(t)
	conn, br := upgrade(t, "unix", s.sock)
	const n = 20
	var frames [][]byte
	for i := range n {
		frames = append(frames, requestFrame(uint64(i+1), "POST /v1/mutations", mutateBody("alice", fmt.Sprintf("p/%d.txt", i))))
	}
	write(t, conn, frames...)
	seen := map[uint64]bool{}
	for range n {
		a := readAnswer(t, br)
		var r leasegate.Result
		if err := json.Unmarshal([]byte(a.body), &r); err != nil || a.status != http.StatusOK || r.Outcome != leasegate.Granted {
			t.Fatalf("answer %d = %d %s, want 200 granted", a.id, a.status, a.body)
		}
		want := fmt.Sprintf("p/%d.txt", a.id-1)
		if seen[a.id] || len(r.Leases) != 1 || r.Leases[0].Scope.Paths[0] != want {
			t.Fatalf("answer %d (seen before: %v) grants %+v, want one lease on %s", a.id, seen[a.id], r.Leases, want)
		}
		seen[a.id] = true
	}
	for i := range n {
		if !s.holds(t, "alice", fmt.Sprintf("p/%d.txt", i)) {
			t.Fatalf("alice does not hold p/%d.txt after its grant", i)
		}
	}
}

// TestStreamAnswersLikeHTTP: for each request the stream answers with the
// status and error code that the same HTTP request gets.
func TestStreamAnswersLikeHTTP(t *testing.T) {
	s := serve(t)
	s.mutate(t, "bob", "bob.txt")
	hc := rawClient(t, s.sock)
	conn, br := upgrade(t, "unix", s.sock)
	tests := []struct {
		name, target, body string
		httpBody           string // for HTTP when body changed state (default body)
		status             int
		code               gate.Reason
	}{
		{name: "grant", target: "POST /v1/mutations", body: mutateBody("alice", "a.txt"), status: http.StatusOK},
		{name: "try on a held file", target: "POST /v1/mutations", body: `{"owner":"alice","op":"write","paths":["bob.txt"],"try":true}`, status: http.StatusOK},
		{name: "unknown owner", target: "POST /v1/mutations", body: mutateBody("mallory", "m.txt"), status: http.StatusNotFound, code: gate.ReasonNotFound},
		{name: "outside", target: "POST /v1/mutations", body: mutateBody("alice", "../x"), status: http.StatusBadRequest, code: gate.ReasonOutsideWorkspace},
		{name: "not json", target: "POST /v1/mutations", body: `{"owner":`, status: http.StatusBadRequest, code: gate.ReasonInputInvalid},
		{name: "unknown field", target: "POST /v1/mutations", body: `{"owner":"alice","paths":["a"],"force":true}`, status: http.StatusBadRequest, code: gate.ReasonInputInvalid},
		{name: "lease acquire", target: "POST /v1/leases", body: `{"op":"acquire","owner":{"name":"carol"},"scope":{"type":"sparse","paths":["docs/**"]}}`,
			httpBody: `{"op":"acquire","owner":{"name":"carol"},"scope":{"type":"sparse","paths":["more/**"]}}`, status: http.StatusOK},
		{name: "lease held", target: "POST /v1/leases", body: `{"op":"acquire","owner":{"name":"dave"},"scope":{"type":"file","paths":["bob.txt"]}}`, status: http.StatusConflict, code: gate.ReasonHeldByOther},
		{name: "evict by the operator, no such lease", target: "POST /v1/leases", body: `{"op":"evict","owner":{"name":"ops"},"lease_id":"01J00000000000000000000000","reason":"stale"}`, status: http.StatusNotFound, code: gate.ReasonNotFound},
		{name: "heartbeat", target: "POST /v1/owners/alice/heartbeat", status: http.StatusOK},
		{name: "heartbeat unknown", target: "POST /v1/owners/mallory/heartbeat", status: http.StatusNotFound, code: gate.ReasonNotFound},
		{name: "heartbeat bad name", target: "POST /v1/owners/a%2Fb/heartbeat", status: http.StatusBadRequest, code: gate.ReasonInputInvalid},
		{name: "activity", target: "POST /v1/owners/alice/activity", status: http.StatusOK},
		{name: "check", target: "POST /v1/check", body: `{"paths":["bob.txt"]}`, status: http.StatusOK},
		{name: "check with no paths", target: "POST /v1/check", body: `{"paths":[]}`, status: http.StatusBadRequest, code: gate.ReasonInputInvalid},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write(t, conn, requestFrame(uint64(i+1), tt.target, tt.body))
			a := readAnswer(t, br)
			if a.id != uint64(i+1) || a.status != tt.status || a.code() != tt.code {
				t.Fatalf("stream %s = id %d, %d %s; want id %d, %d %q", tt.target, a.id, a.status, a.body, i+1, tt.status, tt.code)
			}
			method, path, _ := strings.Cut(tt.target, " ")
			body := tt.body
			if tt.httpBody != "" {
				body = tt.httpBody
			}
			req, _ := http.NewRequest(method, "http://x"+path, strings.NewReader(body))
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if h := (answer{status: resp.StatusCode, body: string(got)}); h.status != tt.status || h.code() != tt.code {
				t.Fatalf("HTTP %s = %d %s; the stream answered %d %s", tt.target, h.status, h.body, a.status, a.body)
			}
		})
	}
}

// TestStreamCarriesOnlyItsTargets: the stream serves the routes of
// StreamTargets from the route table HTTP serves, and no other: a route
// HTTP has but the stream does not carry, or a target that only starts
// like one, is LEASE_NOT_FOUND on the stream.
func TestStreamCarriesOnlyItsTargets(t *testing.T) {
	s := serve(t)
	conn, br := upgrade(t, "unix", s.sock)
	for i, target := range []string{
		"GET /v1/status", "POST /v1/owners/alice/stop", "POST /v1/owners/alice/heartbeat/more",
		"POST /v1/owners/heartbeat", "GET /v1/mutations", "POST /v1/mutations/x", "POST v1/mutations",
	} {
		write(t, conn, requestFrame(uint64(i+1), target, ""))
		a := readAnswer(t, br)
		if a.id != uint64(i+1) || a.status != http.StatusNotFound || !strings.Contains(a.body, "no stream endpoint") {
			t.Errorf("stream %s = id %d, %d %s; want id %d, 404 no stream endpoint", target, a.id, a.status, a.body, i+1)
		}
	}
}

// heldLedger holds every Append while held is set, until release: it lets a
// test keep a request waiting for its commit. storetest.AppendOnly makes
// the coordinator's EnqueueAck of this Append, one call at a time.
type heldLedger struct {
	store.Ledger
	held    atomic.Bool
	entered chan struct{} // receives when an Append starts to wait
	release chan struct{}
}

func newHeldLedger(l store.Ledger) *heldLedger {
	return &heldLedger{Ledger: l, entered: make(chan struct{}, 16), release: make(chan struct{})}
}

// holdLedger puts a heldLedger in place of the coordinator's ledger, and
// lets go of what it holds when the test ends, so that a failed test still
// stops its coordinator. (Cleanups run last-registered first: this one
// before the coordinator's.)
func holdLedger(t *testing.T) (*testServer, *heldLedger) {
	var hl *heldLedger
	s := serve(t, func(c *coordinator.Config) { hl = newHeldLedger(c.Ledger); c.Ledger = storetest.AppendOnly(hl) })
	t.Cleanup(func() {
		select {
		case <-hl.release:
		default:
			close(hl.release)
		}
	})
	return s, hl
}

func (l *heldLedger) Append(ctx context.Context, evs ...gate.Event) ([]gate.Event, error) {
	if l.held.Load() {
		l.entered <- struct{}{}
		<-l.release
	}
	return l.Ledger.Append(ctx, evs...)
}

// TestStreamAnswersOutOfOrder: a request waiting for its commit does not
// hold up the requests behind it on the same stream.
func TestStreamAnswersOutOfOrder(t *testing.T) {
	s, hl := holdLedger(t)
	conn, br := upgrade(t, "unix", s.sock)
	hl.held.Store(true)
	write(t, conn, requestFrame(1, "POST /v1/mutations", mutateBody("alice", "slow.txt")))
	<-hl.entered
	hl.held.Store(false)
	write(t, conn, requestFrame(2, "POST /v1/owners/alice/heartbeat", ""), requestFrame(3, "POST /v1/owners/bob/activity", ""))
	got := map[uint64]int{}
	for range 2 {
		a := readAnswer(t, br)
		got[a.id] = a.status
	}
	if got[2] != http.StatusOK || got[3] != http.StatusOK {
		t.Fatalf("answers while request 1 waits for its commit = %v, want 2 and 3 with 200", got)
	}
	close(hl.release)
	if a := readAnswer(t, br); a.id != 1 || a.status != http.StatusOK {
		t.Fatalf("answer after the commit = id %d %d %s, want id 1 granted", a.id, a.status, a.body)
	}
}

// TestStreamPipelinedLeases: lease operations written at once on one
// stream are each answered once, under their id, once durable; one whose
// commit waits does not hold up the stream's other requests, and a bad
// frame after it is answered only after it.
func TestStreamPipelinedLeases(t *testing.T) {
	s, hl := holdLedger(t)
	conn, br := upgrade(t, "unix", s.sock)
	const n = 20
	var frames [][]byte
	for i := range n {
		frames = append(frames, requestFrame(uint64(i+1), "POST /v1/leases",
			fmt.Sprintf(`{"op":"acquire","owner":{"name":"carol"},"scope":{"type":"file","paths":["c/%d.txt"]}}`, i)))
	}
	write(t, conn, frames...)
	for seen := map[uint64]bool{}; len(seen) < n; {
		a := readAnswer(t, br)
		var r leasegate.LeaseResult
		if err := json.Unmarshal([]byte(a.body), &r); err != nil || a.status != http.StatusOK || !r.Decision.Granted {
			t.Fatalf("answer %d = %d %s, want 200 granted", a.id, a.status, a.body)
		}
		if want := fmt.Sprintf("c/%d.txt", a.id-1); seen[a.id] || len(r.Leases) != 1 || r.Leases[0].Scope.Paths[0] != want {
			t.Fatalf("answer %d (seen before: %v) grants %+v, want one lease on %s", a.id, seen[a.id], r.Leases, want)
		}
		seen[a.id] = true
	}
	hl.held.Store(true)
	write(t, conn, requestFrame(n+1, "POST /v1/leases", `{"op":"acquire","owner":{"name":"carol"},"scope":{"type":"file","paths":["slow.txt"]}}`))
	<-hl.entered
	hl.held.Store(false)
	write(t, conn, requestFrame(n+2, "POST /v1/owners/alice/activity", ""), requestFrame(n+3, "POST /v1/leases", `{"op":`))
	for range 2 { // both while n+1 waits, in either order
		switch a := readAnswer(t, br); {
		case a.id == n+2 && a.status == http.StatusOK:
		case a.id == n+3 && a.code() == gate.ReasonInputInvalid:
		default:
			t.Fatalf("answer while a lease waits for its commit = id %d %d %s, want id %d 200 and id %d %s",
				a.id, a.status, a.body, n+2, n+3, gate.ReasonInputInvalid)
		}
	}
	write(t, conn, []byte{0, 0, 0, 1, 0})
	close(hl.release)
	if a := readAnswer(t, br); a.id != n+1 || a.status != http.StatusOK {
		t.Fatalf("answer after the commit = id %d %d %s, want id %d granted", a.id, a.status, a.body, n+1)
	}
	if a := readAnswer(t, br); a.id != 0 || a.code() != gate.ReasonInputInvalid {
		t.Fatalf("answer to the bad frame = id %d %d %s, want id 0 %s", a.id, a.status, a.body, gate.ReasonInputInvalid)
	}
}

// TestStreamBadFrameClosesConnection: a frame that breaks the protocol is
// answered with id 0 and a clear error after the requests before it, and
// the connection is closed: neither the bad frame nor anything after it
// is carried out.
func TestStreamBadFrameClosesConnection(t *testing.T) {
	oversize := binary.BigEndian.AppendUint32(nil, api.MaxBody+1)
	tests := []struct {
		name    string
		bad     []byte
		status  int
		code    gate.Reason
		message string
	}{
		{name: "shorter than a header", bad: []byte{0, 0, 0, 3, 1, 2, 3}, status: http.StatusBadRequest, code: gate.ReasonInputInvalid, message: "malformed frame"},
		{name: "request id 0", bad: requestFrame(0, "POST /v1/mutations", mutateBody("alice", "zero.txt")), status: http.StatusBadRequest, code: gate.ReasonInputInvalid, message: "request id 0"},
		{name: "target past the end", bad: []byte{0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 9, 0, 200, 'P', 'O'}, status: http.StatusBadRequest, code: gate.ReasonInputInvalid, message: "target length"},
		{name: "target without a method", bad: requestFrame(9, "/v1/mutations", mutateBody("alice", "nomethod.txt")), status: http.StatusBadRequest, code: gate.ReasonInputInvalid, message: "METHOD /path"},
		{name: "oversized", bad: append(oversize, make([]byte, 64)...), status: http.StatusRequestEntityTooLarge, code: api.CodeTooLarge, message: "over the 1048576-byte limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t)
			conn, br := upgrade(t, "unix", s.sock)
			write(t, conn, requestFrame(1, "POST /v1/mutations", mutateBody("alice", "before.txt")), tt.bad,
				requestFrame(3, "POST /v1/mutations", mutateBody("alice", "after.txt")))
			if a := readAnswer(t, br); a.id != 1 || a.status != http.StatusOK {
				t.Fatalf("answer to the request before the bad frame = id %d %d %s, want id 1 granted", a.id, a.status, a.body)
			}
			a := readAnswer(t, br)
			if a.id != 0 || a.status != tt.status || a.code() != tt.code || !strings.Contains(a.body, tt.message) {
				t.Fatalf("answer to the bad frame = id %d %d %s, want id 0 %d %s mentioning %q", a.id, a.status, a.body, tt.status, tt.code, tt.message)
			}
			if a, err := tryReadAnswer(br); !errors.Is(err, io.EOF) {
				t.Fatalf("after the error answer got %+v, %v; want the connection closed", a, err)
			}
			for _, p := range []string{"zero.txt", "nomethod.txt", "after.txt"} {
				if s.holds(t, "alice", p) {
					t.Fatalf("alice holds %s: a request at or after a bad frame was carried out", p)
				}
			}
		})
	}
}

// TestStreamDroppedMidFrame: a client that goes away in the middle of a
// frame leaves nothing applied, and the server goes on serving.
func TestStreamDroppedMidFrame(t *testing.T) {
	s := serve(t)
	conn, _ := upgrade(t, "unix", s.sock)
	f := requestFrame(1, "POST /v1/mutations", mutateBody("alice", "half.txt"))
	write(t, conn, f[:len(f)/2])
	conn.Close()
	s.mutate(t, "bob", "other.txt")
	if s.holds(t, "alice", "half.txt") {
		t.Fatal("half a frame was carried out")
	}
}

// TestStreamServerGoneMidRequest: when the server goes away while a call
// waits for its answer, the client fails closed (ErrUnavailable), never
// reporting a grant it did not receive.
func TestStreamServerGoneMidRequest(t *testing.T) {
	s, hl := holdLedger(t)
	sock := filepath.Join(socketDir(t), "second.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.srv.Serve(ctx, ln, false) }()
	cl := newClient(t, api.ClientConfig{Socket: sock})
	if _, err := cl.Heartbeat(context.Background(), "alice"); err != nil { // opens the stream
		t.Fatalf("Heartbeat() = %v", err)
	}
	hl.held.Store(true)
	type result struct {
		r   leasegate.Result
		err error
	}
	res := make(chan result, 1)
	go func() {
		r, err := cl.Mutate(context.Background(), leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"gone.txt"}})
		res <- result{r, err}
	}()
	<-hl.entered
	hl.held.Store(false)
	stop()
	if err := <-served; err != nil {
		t.Fatalf("Serve() = %v", err)
	}
	got := <-res
	if !isUnavailable(got.err) || got.r.Outcome == leasegate.Granted {
		t.Fatalf("Mutate() while its server went away = %s, %v; want ErrUnavailable", got.r.Outcome, got.err)
	}
	close(hl.release)
}

// counting wraps a handler and counts requests by "METHOD /path".
type counting struct {
	next http.Handler
	mu   sync.Mutex
	n    map[string]int
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.n[r.Method+" "+r.URL.Path]++
	c.mu.Unlock()
	c.next.ServeHTTP(w, r)
}

func (c *counting) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

// serveCounting serves h on a new listener, counting requests, until the
// test ends, and returns the listener's address.
func serveCounting(t *testing.T, network, addr string, h http.Handler) (string, *counting) {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	c := &counting{next: h, n: map[string]int{}}
	srv := &http.Server{Handler: c}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return ln.Addr().String(), c
}

// TestClientUsesStream: the client's hot-path calls go over one stream,
// not HTTP requests; with NoStream they are HTTP requests.
func TestClientUsesStream(t *testing.T) {
	s := serve(t)
	for _, tt := range []struct {
		noStream               bool
		wantUpgrades, wantPOST int
	}{{noStream: false, wantUpgrades: 1, wantPOST: 0}, {noStream: true, wantUpgrades: 0, wantPOST: 3}} {
		t.Run(fmt.Sprintf("NoStream=%t", tt.noStream), func(t *testing.T) {
			sock, c := serveCounting(t, "unix", filepath.Join(socketDir(t), "count.sock"), s.srv.Handler(false))
			cl := newClient(t, api.ClientConfig{Socket: sock, NoStream: tt.noStream})
			for i := range 3 {
				if r, err := cl.Mutate(context.Background(), leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{fmt.Sprintf("u%d.txt", i)}}); err != nil || r.Outcome != leasegate.Granted {
					t.Fatalf("Mutate() = %s, %v", r.Outcome, err)
				}
			}
			if up, post := c.count("GET /v1/stream"), c.count("POST /v1/mutations"); up != tt.wantUpgrades || post != tt.wantPOST {
				t.Fatalf("upgrades %d, POST /v1/mutations %d; want %d, %d", up, post, tt.wantUpgrades, tt.wantPOST)
			}
			cl.Close()
		})
	}
}

// TestClientFallsBackToHTTP: a coordinator that refuses the upgrade (one
// that predates the stream) is used over plain HTTP; the client asks for
// the stream once, not on every call.
func TestClientFallsBackToHTTP(t *testing.T) {
	s := serve(t)
	refuse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/stream" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":{"code":"LEASE_NOT_FOUND","message":"no endpoint GET /v1/stream"}}`)
			return
		}
		s.srv.Handler(false).ServeHTTP(w, r)
	})
	sock, c := serveCounting(t, "unix", filepath.Join(socketDir(t), "old.sock"), refuse)
	cl := newClient(t, api.ClientConfig{Socket: sock})
	ctx := context.Background()
	for i := range 3 {
		if r, err := cl.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{fmt.Sprintf("old%d.txt", i)}}); err != nil || r.Outcome != leasegate.Granted {
			t.Fatalf("Mutate() against a coordinator without the stream = %s, %v", r.Outcome, err)
		}
	}
	if _, err := cl.Heartbeat(ctx, "alice"); err != nil {
		t.Fatalf("Heartbeat() = %v", err)
	}
	if up, post := c.count("GET /v1/stream"), c.count("POST /v1/mutations"); up != 1 || post != 3 {
		t.Fatalf("upgrades %d, POST /v1/mutations %d; want 1, 3", up, post)
	}
}

// TestStreamTCPAuth: on TCP the upgrade needs the bearer token, and the
// client's stream carries it; a client with a wrong token gets
// UNAUTHORIZED and nothing is granted.
func TestStreamTCPAuth(t *testing.T) {
	s := serve(t)
	addr, c := serveCounting(t, "tcp", "127.0.0.1:0", s.srv.Handler(true))
	for _, tt := range []struct {
		name   string
		header []string
	}{{"no token", nil}, {"wrong token", []string{"Authorization", "Bearer wrong"}}} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/stream", nil)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", api.StreamProtocol)
		for i := 0; i+1 < len(tt.header); i += 2 {
			req.Header.Set(tt.header[i], tt.header[i+1])
		}
		_ = req.Write(conn)
		resp, err := http.ReadResponse(bufio.NewReader(conn), req)
		if err != nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("upgrade on TCP with %s = %v, %v; want 401", tt.name, resp, err)
		}
		conn.Close()
	}
	conn, br := upgrade(t, "tcp", addr, "Authorization", "Bearer "+adminToken)
	write(t, conn, requestFrame(1, "POST /v1/owners/alice/heartbeat", ""))
	if a := readAnswer(t, br); a.status != http.StatusOK {
		t.Fatalf("heartbeat on an authorized TCP stream = %d %s", a.status, a.body)
	}
	ctx := context.Background()
	good := newClient(t, api.ClientConfig{BaseURL: "http://" + addr, Token: adminToken})
	if r, err := good.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"tcp.txt"}}); err != nil || r.Outcome != leasegate.Granted {
		t.Fatalf("Mutate() over a TCP stream = %s, %v", r.Outcome, err)
	}
	if post := c.count("POST /v1/mutations"); post != 0 {
		t.Fatalf("the TCP client sent %d HTTP mutations, want 0 (the stream)", post)
	}
	bad := newClient(t, api.ClientConfig{BaseURL: "http://" + addr, Token: "wrong"})
	r, err := bad.Mutate(ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"b.txt"}})
	var de *gate.DeniedError
	if !errors.As(err, &de) || de.Reason != api.CodeUnauthorized || r.Outcome == leasegate.Granted {
		t.Fatalf("Mutate() with a wrong token = %s, %v; want UNAUTHORIZED", r.Outcome, err)
	}
	if s.holds(t, "bob", "b.txt") {
		t.Fatal("a refused TCP client took a lease")
	}
}

// TestStreamGarbageIsUnavailable: a server that accepts the upgrade but
// answers frames that are not the protocol's (or not the API's) is
// unavailable to the client, never a grant. Its HTTP API would grant, so
// a client that fell back to HTTP after garbage would be caught.
func TestStreamGarbageIsUnavailable(t *testing.T) {
	tests := []struct {
		name   string
		answer func(id uint64) []byte
	}{
		{name: "unknown id", answer: func(id uint64) []byte { return answerFrame(id+7, 200, `{"outcome":"granted"}`) }},
		{name: "status out of range", answer: func(id uint64) []byte { return answerFrame(id, 42, `{"outcome":"granted"}`) }},
		{name: "short frame", answer: func(uint64) []byte { return []byte{0, 0, 0, 2, 0, 1} }},
		{name: "200 not json", answer: func(id uint64) []byte { return answerFrame(id, 200, `granted`) }},
		{name: "200 truncated json", answer: func(id uint64) []byte { return answerFrame(id, 200, `{"outcome":"granted","leases":[`) }},
		{name: "409 without an api body", answer: func(id uint64) []byte { return answerFrame(id, 409, `<html>`) }},
		{name: "id 0", answer: func(uint64) []byte { return answerFrame(0, 400, `{"error":{"code":"X","message":"y"}}`) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sock := impostor(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/stream" {
					w.Header().Set("Content-Type", "application/json")
					_, _ = io.WriteString(w, `{"outcome":"granted","reason":"OK"}`)
					return
				}
				fakeStream(w, tt.answer)
			})
			cl := newClient(t, api.ClientConfig{Socket: sock})
			r, err := cl.Mutate(context.Background(), leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"a.txt"}})
			if !isUnavailable(err) || r.Outcome == leasegate.Granted {
				t.Fatalf("Mutate() against a stream answering %s = %s, %v; want ErrUnavailable", tt.name, r.Outcome, err)
			}
		})
	}
}

func answerFrame(id uint64, status int, body string) []byte {
	p := binary.BigEndian.AppendUint64(nil, id)
	p = binary.BigEndian.AppendUint16(p, uint16(status))
	p = append(p, body...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(p))), p...)
}

// fakeStream accepts an upgrade and answers the first request with
// answer(its id), then waits for the client to go.
func fakeStream(w http.ResponseWriter, answer func(id uint64) []byte) {
	conn, brw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + api.StreamProtocol + "\r\n\r\n")
	_ = brw.Flush()
	var n [4]byte
	if _, err := io.ReadFull(brw, n[:]); err != nil {
		return
	}
	p := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(brw, p); err != nil {
		return
	}
	_, _ = conn.Write(answer(binary.BigEndian.Uint64(p)))
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.Copy(io.Discard, brw)
}

// TestClientSharesOneStream: calls from many goroutines share the client's
// one stream, each getting its own answer.
func TestClientSharesOneStream(t *testing.T) {
	s := serve(t)
	sock, c := serveCounting(t, "unix", filepath.Join(socketDir(t), "shared.sock"), s.srv.Handler(false))
	cl := newClient(t, api.ClientConfig{Socket: sock})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 10 {
				p := fmt.Sprintf("g%d/%d.txt", g, i)
				r, err := cl.Mutate(context.Background(), leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{p}})
				if err != nil || r.Outcome != leasegate.Granted || r.Leases[0].Scope.Paths[0] != p {
					t.Errorf("Mutate(%s) = %+v, %v; want a grant of %s", p, r, err, p)
					return
				}
			}
		})
	}
	wg.Wait()
	if up := c.count("GET /v1/stream"); up != 1 {
		t.Fatalf("%d upgrades for 160 calls from 16 goroutines, want 1", up)
	}
	cl.Close()
}

// TestClientCallsFinishOutOfOrder: on one client, a call waiting for its
// commit does not hold up a later call, whichever of them reads the
// stream.
func TestClientCallsFinishOutOfOrder(t *testing.T) {
	s, hl := holdLedger(t)
	cl := newClient(t, api.ClientConfig{Socket: s.sock})
	ctx := context.Background()
	hl.held.Store(true)
	slow := make(chan error, 1)
	go func() {
		_, err := cl.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"slow.txt"}})
		slow <- err
	}()
	<-hl.entered
	hl.held.Store(false)
	for range 3 {
		if _, err := cl.Heartbeat(ctx, "bob"); err != nil {
			t.Fatalf("Heartbeat() while another call waits = %v", err)
		}
	}
	close(hl.release)
	if err := recv(t, slow); err != nil {
		t.Fatalf("Mutate() after its commit = %v", err)
	}
}

// TestClientAbandonedCalls: a call whose ctx ends returns at once, whether
// it was reading the stream or waiting for another call to hand it its
// answer; the calls still waiting get their answers, and the stream stays
// usable.
func TestClientAbandonedCalls(t *testing.T) {
	for _, first := range []string{"reader", "waiter"} {
		t.Run(first, func(t *testing.T) {
			s, hl := holdLedger(t)
			sock, c := serveCounting(t, "unix", filepath.Join(socketDir(t), "abandon.sock"), s.srv.Handler(false))
			cl := newClient(t, api.ClientConfig{Socket: sock})
			if _, err := cl.Heartbeat(context.Background(), "alice"); err != nil { // open the stream
				t.Fatal(err)
			}
			hl.held.Store(true)
			ctxA, cancelA := context.WithCancel(context.Background())
			ctxB, cancelB := context.WithCancel(context.Background())
			defer cancelA()
			defer cancelB()
			a, b := goMutate(cl, ctxA, "a.txt"), make(chan error, 1)
			<-hl.entered // a is the stream's reader and its commit is held
			go func() { b <- <-goMutate(cl, ctxB, "b.txt") }()
			waitPending(t, s, "b.txt")
			if first == "reader" {
				cancelA()
				if err := recv(t, a); !errors.Is(err, context.Canceled) {
					t.Fatalf("Mutate(a) after its ctx ended = %v, want %v", err, context.Canceled)
				}
			} else {
				cancelB()
				if err := recv(t, b); !errors.Is(err, context.Canceled) {
					t.Fatalf("Mutate(b) after its ctx ended = %v, want %v", err, context.Canceled)
				}
			}
			hl.held.Store(false)
			close(hl.release)
			if first == "reader" {
				if err := recv(t, b); err != nil {
					t.Fatalf("Mutate(b) after a gave up = %v", err)
				}
			} else if err := recv(t, a); err != nil {
				t.Fatalf("Mutate(a) after b gave up = %v", err)
			}
			if r, err := cl.Mutate(context.Background(), leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"c.txt"}}); err != nil || r.Outcome != leasegate.Granted {
				t.Fatalf("Mutate(c) afterwards = %s, %v", r.Outcome, err)
			}
			if up, post := c.count("GET /v1/stream"), c.count("POST /v1/mutations"); up != 1 || post != 0 {
				t.Fatalf("upgrades %d, HTTP mutations %d; want 1, 0 (one stream throughout)", up, post)
			}
		})
	}
}

// recv waits for a call's outcome, failing the test after 10 s: a call
// that never returns is the bug these tests look for.
func recv(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not return within 10 s")
		return nil
	}
}

func goMutate(cl *api.Client, ctx context.Context, path string) <-chan error {
	ch := make(chan error, 1)
	go func() {
		_, err := cl.Mutate(ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{path}})
		ch <- err
	}()
	return ch
}

// waitPending waits until the coordinator has decided a grant of path
// (its commit is queued behind the held one).
func waitPending(t *testing.T, s *testServer, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !s.holds(t, "alice", path); {
		if time.Now().After(deadline) {
			t.Fatalf("the grant of %s was never decided", path)
		}
		runtime.Gosched()
	}
}
