package integration_test

import (
	"bufio"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUIExitsWithPageOpen: SIGINT ends `leasegate ui` at once while a
// page's event stream is open: the stream's handler ends with the
// console instead of holding the server's shutdown.
func TestUIExitsWithPageOpen(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	ui := r.start("ui")
	var url string
	eventually(t, 30*time.Second, "the login URL of leasegate ui", func() bool {
		url = loginURL.FindString(ui.out.String())
		return url != ""
	})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = c.Get(url[:strings.Index(url, "/login")] + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "event: snapshot") {
	}
	start := time.Now()
	if err := ui.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ui.done:
	case <-time.After(30 * time.Second):
		t.Fatal("leasegate ui still running 30 s after SIGINT")
	}
	took := time.Since(start)
	t.Logf("leasegate ui exited %v after SIGINT with a page's stream open (code %d)", took, ui.code)
	if took > time.Second {
		t.Errorf("leasegate ui took %v to exit on SIGINT with a page open, want well under 1 s", took)
	}
}
