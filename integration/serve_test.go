package integration_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
)

// bareRepo is a git repository with no coordinator running.
func bareRepo(t *testing.T) *repo {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &repo{t: t, dir: dir}
	r.env = append(cleanEnv(), "GIT_AUTHOR_NAME=it", "GIT_AUTHOR_EMAIL=it@example.com",
		"GIT_COMMITTER_NAME=it", "GIT_COMMITTER_EMAIL=it@example.com")
	r.write("README.md", "# it\n")
	r.git("init", "-q", "-b", "main")
	r.git("add", "-A")
	r.git("commit", "-qm", "initial")
	return r
}

// TestAutoStartRace: ten commands race to start the coordinator of a
// workspace; all succeed and exactly one coordinator serves.
func TestAutoStartRace(t *testing.T) {
	r := bareRepo(t)
	var wg sync.WaitGroup
	codes := make([]int, 10)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, codes[i] = r.lg("acquire", fmt.Sprintf("f%d.txt", i), "--as", fmt.Sprintf("w%d", i))
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Fatalf("status %d exited %d", i, c)
		}
	}
	sock := filepath.Join(r.dir, ".git", "leasegate", "coord.sock")
	cl, err := api.NewClient(api.ClientConfig{Socket: sock})
	if err != nil {
		t.Fatal(err)
	}
	h, err := cl.Health(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p, err := os.FindProcess(h.PID); err == nil {
			_ = p.Signal(os.Interrupt)
		}
	})
	// Losing starters give up when the ledger lock is not theirs (1 s).
	eventually(t, 10*time.Second, "one coordinator process", func() bool {
		out, _ := exec.Command("pgrep", "-f", "serve --workspace "+r.dir).Output()
		return len(strings.Fields(string(out))) == 1
	})
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if st := r.git("status", "--porcelain", "--ignored"); st != "" {
		t.Fatalf("leasegate's state shows in git status:\n%s", st)
	}
}

// TestIdleExit: a coordinator with no owners, leases or held mutations
// stops by itself after --idle-exit.
func TestIdleExit(t *testing.T) {
	r := bareRepo(t)
	cmd := exec.Command(bin, "serve", "--workspace", r.dir, "--idle-exit", "1s")
	cmd.Env = r.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("coordinator did not stop after its idle time")
	}
}

// TestWebhookNotices: an eviction notice reaches the webhook; a webhook
// that keeps failing loses no notice: it is recorded as undelivered.
func TestWebhookNotices(t *testing.T) {
	var mu sync.Mutex
	var got []leasegate.Notice
	fail := true
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		mu.Lock()
		defer mu.Unlock()
		if fail {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		var n leasegate.Notice
		_ = json.Unmarshal(body, &n)
		got = append(got, n)
	}))
	defer hook.Close()
	r := bareRepo(t)
	r.log = nil
	cmd := exec.Command(bin, "serve", "--workspace", r.dir, "--notify-url", hook.URL, "--idle-exit", "0")
	cmd.Env = r.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	cl, _ := api.NewClient(api.ClientConfig{Socket: filepath.Join(r.dir, ".git", "leasegate", "coord.sock")})
	r.client = cl
	eventually(t, 10*time.Second, "coordinator", func() bool { _, err := cl.Health(context.Background()); return err == nil })

	r.mustLG("acquire", "--as", "alice", "a.txt")
	r.mustLG("evict", "a.txt", "--reason", "maintenance window")
	eventually(t, 30*time.Second, "the undelivered notice recorded", func() bool {
		return hasEvent(r.history(""), gate.EventNoticeUndelivered)
	})
	mu.Lock()
	fail = false
	mu.Unlock()
	r.mustLG("acquire", "--as", "bob", "b.txt")
	r.mustLG("evict", "b.txt", "--reason", "second window")
	eventually(t, 15*time.Second, "the eviction notice at the webhook", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range got {
			if n.Owner == "bob" && n.Kind == leasegate.NoticeEvicted && strings.Contains(n.Message, "second window") {
				return true
			}
		}
		return false
	})
}

// TestServeListenSaysItsAddress: `serve --listen 127.0.0.1:0` says on
// stderr, whatever the log level, the address the kernel gave it and where
// the admin token is (it said nothing: the port could not be known), and
// the coordinator answers there, to the token only.
func TestServeListenSaysItsAddress(t *testing.T) {
	r := bareRepo(t)
	cmd := r.command(t.Context(), "serve", "--listen", "127.0.0.1:0", "--idle-exit", "0")
	cmd.Dir, cmd.Env = r.dir, r.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	said := make(chan string, 1)
	go func() { // ends when the coordinator's stderr closes
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case said <- sc.Text():
			default:
			}
		}
	}()
	var addr, tokenFile string
	select {
	case line := <-said:
		if _, err := fmt.Sscanf(line, "leasegate: serving on TCP at %s too: requests there need the admin token in %s as bearer token", &addr, &tokenFile); err != nil {
			t.Fatalf("serve --listen 127.0.0.1:0 said %q; want the address it serves on and the token's file", line)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve --listen 127.0.0.1:0 said nothing within 15 s")
	}
	token, err := os.ReadFile(tokenFile)
	if want := filepath.Join(r.dir, ".git", "leasegate", "admin.token"); tokenFile != want || err != nil {
		t.Fatalf("serve names the token file %q (%v); want %s", tokenFile, err, want)
	}
	for _, tc := range []struct {
		auth string
		want int
	}{{"", http.StatusUnauthorized}, {"Bearer " + strings.TrimSpace(string(token)), http.StatusOK}} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+addr+"/v1/health", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET /v1/health at the address serve said, %s: %v", addr, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET /v1/health at %s with authorization %t = %d, want %d", addr, tc.auth != "", resp.StatusCode, tc.want)
		}
	}
}
