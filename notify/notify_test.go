package notify_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/notify"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// webhook records the notices it is posted and answers with status.
type webhook struct {
	mu       sync.Mutex
	status   int
	got      []leasegate.Notice
	attempts int
}

func (w *webhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.attempts++
	var x leasegate.Notice
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&x) != nil {
		rw.WriteHeader(http.StatusBadRequest)
		return
	}
	if w.status != http.StatusOK {
		rw.WriteHeader(w.status)
		return
	}
	w.got = append(w.got, x)
}

func (w *webhook) seqs() []uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	var s []uint64
	for _, x := range w.got {
		s = append(s, x.Seq)
	}
	return s
}

// lostLog collects what the notifier reports undelivered.
type lostLog struct {
	mu   sync.Mutex
	seqs []uint64
	errs []error
}

func (l *lostLog) record(x leasegate.Notice, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seqs, l.errs = append(l.seqs, x.Seq), append(l.errs, err)
}

func (l *lostLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.seqs)
}

// start runs n until the test ends.
func start(t *testing.T, n *notify.Notifier) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); n.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

func notice(seq uint64) leasegate.Notice {
	return leasegate.Notice{Owner: "alice", Kind: leasegate.NoticeReminder, At: time.Unix(1700000000, 0).UTC(), Message: "expires soon", Seq: seq}
}

// waitFor polls cond: delivery happens on Run's goroutine over a real
// socket, so the test waits for an outcome, not for a duration.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestNewRefusesBadURL(t *testing.T) {
	for _, u := range []string{"", "ftp://host/x", "http://", "::not a url", "/relative"} {
		if _, err := notify.New(notify.Config{URL: u}); err == nil || !strings.Contains(err.Error(), "notify url") {
			t.Errorf("New(URL %q) error = %v, want one naming the notify url", u, err)
		}
	}
}

func TestDeliversInOrder(t *testing.T) {
	hook := &webhook{status: http.StatusOK}
	srv := httptest.NewServer(hook)
	defer srv.Close()
	var lost lostLog
	n, err := notify.New(notify.Config{URL: srv.URL, Undelivered: lost.record})
	if err != nil {
		t.Fatal(err)
	}
	start(t, n)
	for i := uint64(1); i <= 20; i++ {
		n.Send(notice(i))
	}
	waitFor(t, "20 notices", func() bool { return len(hook.seqs()) == 20 })
	for i, s := range hook.seqs() {
		if s != uint64(i+1) {
			t.Fatalf("webhook got seqs %v, want 1..20 in order", hook.seqs())
		}
	}
	if lost.len() != 0 || n.Undelivered() != 0 {
		t.Errorf("undelivered = %d (reported %v), want none", n.Undelivered(), lost.seqs)
	}
}

func TestFailingWebhookRetriesThenReports(t *testing.T) {
	hook := &webhook{status: http.StatusServiceUnavailable}
	srv := httptest.NewServer(hook)
	defer srv.Close()
	var lost lostLog
	n, err := notify.New(notify.Config{URL: srv.URL, RetryMax: 2, RetryWaitMin: time.Millisecond, RetryWaitMax: 2 * time.Millisecond, Undelivered: lost.record})
	if err != nil {
		t.Fatal(err)
	}
	start(t, n)
	n.Send(notice(7))
	waitFor(t, "the undelivered report", func() bool { return lost.len() == 1 })
	hook.mu.Lock()
	attempts := hook.attempts
	hook.mu.Unlock()
	if attempts != 3 {
		t.Errorf("webhook saw %d attempts, want 3 (1 + RetryMax 2)", attempts)
	}
	if lost.seqs[0] != 7 || lost.errs[0] == nil || !strings.Contains(lost.errs[0].Error(), "503") {
		t.Errorf("reported seq %d error %v, want seq 7 with an error naming 503", lost.seqs[0], lost.errs[0])
	}
	if got := n.Undelivered(); got != 1 {
		t.Errorf("Undelivered() = %d, want 1", got)
	}
}

func TestFullQueueReportsTheOldest(t *testing.T) {
	hook := &webhook{status: http.StatusOK}
	srv := httptest.NewServer(hook)
	defer srv.Close()
	var lost lostLog
	n, err := notify.New(notify.Config{URL: srv.URL, Undelivered: lost.record})
	if err != nil {
		t.Fatal(err)
	}
	total := uint64(notify.DefaultQueue + 2)
	for i := uint64(1); i <= total; i++ {
		n.Send(notice(i)) // Run is not started: the queue fills
	}
	start(t, n)
	// A full queue's deliveries are real HTTP round trips, one after the
	// other, and take long where each is slow (the Windows tests run under
	// Wine): the wait gives up only once they make no progress.
	for done, last, stalled := 0, -1, time.Now(); done != notify.DefaultQueue; done = len(hook.seqs()) {
		if done > last {
			last, stalled = done, time.Now()
		}
		if time.Since(stalled) > 10*time.Second {
			t.Fatalf("deliveries of a full queue stalled at %d of %d for 10 s", done, notify.DefaultQueue)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if lost.len() != 2 || lost.seqs[0] != 1 || lost.seqs[1] != 2 {
		t.Fatalf("reported lost seqs %v, want [1 2]", lost.seqs)
	}
	for _, err := range lost.errs {
		if !errors.Is(err, notify.ErrQueueFull) {
			t.Errorf("lost notice error = %v, want ErrQueueFull", err)
		}
	}
	if got := hook.seqs(); got[0] != 3 || got[len(got)-1] != total {
		t.Errorf("delivered seqs %d..%d, want 3..%d", got[0], got[len(got)-1], total)
	}
}
