package integration_test

import (
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"
)

// TestUIJSON: `ui --json` says where it serves as one JSON line while it
// goes on serving, and its login URL logs in: a script that starts the
// console reads the URL with jq instead of scraping text (--json was
// accepted and ignored).
func TestUIJSON(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	ui := r.start("ui", "--json")
	var line string
	eventually(t, 30*time.Second, "the first line of leasegate ui --json", func() bool {
		out := ui.out.String()
		i := strings.IndexByte(out, '\n')
		line = out[:max(i, 0)]
		return i >= 0
	})
	var a struct {
		Workspace string `json:"workspace"`
		URL       string `json:"url"`
		LoginURL  string `json:"login_url"`
	}
	mustJSON(t, line, &a)
	if a.Workspace != r.dir || !strings.HasPrefix(a.URL, "http://127.0.0.1:") || !strings.HasPrefix(a.LoginURL, a.URL+"/login?token=") {
		t.Fatalf("ui --json said %s, want the workspace %s, its URL and a login URL under it", line, r.dir)
	}
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(a.LoginURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/" {
		t.Errorf("GET %s ended at %s with %s, want the page (200)", a.LoginURL, resp.Request.URL, resp.Status)
	}
}
