//go:build linux && (amd64 || arm64)

package fuse_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/intercept"
)

// TestEachOpAsks: every kind of mutation a shell makes asks once with its
// Op and its host paths, before it is done; reads ask nothing.
func TestEachOpAsks(t *testing.T) {
	cases := []struct {
		name   string
		setup  string // run before, ungated
		script string
		op     intercept.Op
		paths  []string
	}{
		{name: "create", script: "echo x > new", op: intercept.OpCreate, paths: []string{"new"}},
		{name: "append", setup: "f", script: "echo x >> f", op: intercept.OpOpenWrite, paths: []string{"f"}},
		{name: "truncating open", setup: "f", script: ": > f", op: intercept.OpTruncate, paths: []string{"f"}},
		{name: "truncate", setup: "f", script: "truncate -s 0 f", op: intercept.OpTruncate, paths: []string{"f"}},
		{name: "chmod", setup: "f", script: "chmod 600 f", op: intercept.OpChmod, paths: []string{"f"}},
		{name: "chown", setup: "f", script: "chown 1:1 f", op: intercept.OpChown, paths: []string{"f"}},
		{name: "utimes", setup: "f", script: "touch -m -d @0 f", op: intercept.OpUtimes, paths: []string{"f"}},
		{name: "unlink", setup: "f", script: "rm f", op: intercept.OpUnlink, paths: []string{"f"}},
		{name: "mkdir", script: "mkdir d", op: intercept.OpMkdir, paths: []string{"d"}},
		{name: "rmdir", setup: "d/", script: "rmdir d", op: intercept.OpRmdir, paths: []string{"d"}},
		{name: "rename", setup: "f", script: "mv f g", op: intercept.OpRename, paths: []string{"f", "g"}},
		{name: "exchange", setup: "f", script: "mkdir d && FUSE_TEST_WORKER=" + exchangeArg0 + " /proc/$PPID/exe f d", op: intercept.OpRename, paths: []string{"f", "d"}},
		{name: "link", setup: "f", script: "ln f l", op: intercept.OpLink, paths: []string{"l", "f"}},
		{name: "symlink", script: "ln -s t s", op: intercept.OpSymlink, paths: []string{"s", "t"}},
		{name: "mkfifo", script: "mkfifo p", op: intercept.OpMknod, paths: []string{"p"}},
		{name: "read", setup: "f", script: "cat f; ls -la; stat f >/dev/null"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace(t)
			switch {
			case strings.HasSuffix(tc.setup, "/"):
				os.Mkdir(filepath.Join(root, tc.setup), 0o755)
			case tc.setup != "":
				os.WriteFile(filepath.Join(root, tc.setup), []byte("old\n"), 0o644)
			}
			rec := &recorder{}
			if code, out := run(t, root, rec, tc.script); code != 0 {
				t.Fatalf("%q exited %d: %s", tc.script, code, out)
			}
			got := rec.All()
			if tc.op == "" {
				if len(got) != 0 {
					t.Fatalf("reads asked: %s", format(got))
				}
				return
			}
			i := slices.IndexFunc(got, func(m intercept.Mutation) bool { return m.Op == tc.op })
			if i < 0 {
				t.Fatalf("%q asked %s, want a %s", tc.script, format(got), tc.op)
			}
			m := got[i]
			if tc.paths != nil {
				var want []string
				for _, p := range tc.paths {
					want = append(want, filepath.Join(root, p))
				}
				if !slices.Equal(m.Paths, want) {
					t.Errorf("%s paths = %q, want %q", tc.op, m.Paths, want)
				}
			}
			if m.PID <= 0 || m.TID <= 0 || !strings.HasPrefix(m.Syscall, "fuse-") {
				t.Errorf("mutation %+v: want a caller and a fuse- request name", m)
			}
		})
	}
}

func format(ms []intercept.Mutation) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "[%s %s %q] ", m.Op, m.Syscall, m.Paths)
	}
	return b.String()
}

// TestDeniedCreateLeavesNothing: a refused create fails with the errno
// the Decider gave, and no file is left behind.
func TestDeniedCreateLeavesNothing(t *testing.T) {
	root := workspace(t)
	rec := &recorder{Answer: deny(intercept.OpCreate, syscall.EBUSY)}
	code, out := run(t, root, rec, "echo x > new")
	if code == 0 || !strings.Contains(out, "busy") {
		t.Fatalf("denied create exited %d: %q; want a failure with EBUSY", code, out)
	}
	if _, err := os.Lstat(filepath.Join(root, "new")); !os.IsNotExist(err) {
		t.Fatalf("denied create left a file: %v", err)
	}
}

// TestReadOnlyDirShowsTheSocket: a directory given as ReadOnly is the one
// beneath the view: a worker connects to a unix socket in it (a FUSE
// inode cannot stand for one) and cannot write there.
func TestReadOnlyDirShowsTheSocket(t *testing.T) {
	root := workspace(t)
	state := filepath.Join(root, "state")
	os.Mkdir(state, 0o755)
	l, err := net.Listen("unix", filepath.Join(state, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	rec := &recorder{}
	var out buffer
	s := start(t, root, rec, &out, "FUSE_TEST_WORKER="+connectArg0+" /proc/$PPID/exe state/s.sock && ! touch state/x", state)
	if st, _ := s.Wait(); st.ExitCode() != 0 {
		t.Fatalf("connect in the read-only directory, then a write there: exit %d: %s", st.ExitCode(), out.String())
	}
	if _, err := os.Lstat(filepath.Join(state, "x")); !os.IsNotExist(err) {
		t.Fatalf("a write in the read-only directory was made: %v", err)
	}
}

// TestOutsideChangeSeenOnItsEvent: a change made beneath the view by
// another process (another worker's view, the host) is what the worker
// reads once the view has read its inotify event — a file's new size and
// content, a removed file, a renamed directory, a new mode, a file made
// where the worker had found none — though the
// kernel may keep what it was told for an hour: the event invalidates it.
// The worker looks every 10 ms for at most 5 s, and says how many looks
// the change took to show.
func TestOutsideChangeSeenOnItsEvent(t *testing.T) {
	root := workspace(t)
	os.WriteFile(filepath.Join(root, "f"), []byte("before\n"), 0o644)
	os.WriteFile(filepath.Join(root, "g"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "h"), nil, 0o644)
	os.MkdirAll(filepath.Join(root, "d", "e"), 0o755)
	os.WriteFile(filepath.Join(root, "d", "e", "x"), nil, 0o644)
	fifo := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var out buffer
	look := `look() { echo $(stat -c %s f; test -e g && echo g; test -e d/e/x && echo x; test -e new && echo new; stat -c %a h d/e); }; `
	poll := `n=0; until [ "$(look)" = "14 new 600 700" ] || [ $n = 500 ]; do n=$((n+1)); sleep 0.01; done; `
	cfg := testConfig(t, root, &recorder{}, &out, look+"look; read x < "+fifo+"; "+poll+"look; echo looks=$n; cat f")
	cfg.WatchedTimeout = time.Hour
	s := startConfig(t, cfg)
	waitFor(t, "the first look", func() bool { return strings.Contains(out.String(), "7 g x 644 755\n") })
	os.WriteFile(filepath.Join(root, "f"), []byte("after, longer\n"), 0o644)
	os.Remove(filepath.Join(root, "g"))
	os.Chmod(filepath.Join(root, "h"), 0o600)
	os.Rename(filepath.Join(root, "d", "e"), filepath.Join(root, "d", "moved"))
	os.Mkdir(filepath.Join(root, "d", "e"), 0o700)
	os.WriteFile(filepath.Join(root, "new"), nil, 0o644)
	os.WriteFile(fifo, []byte("go\n"), 0o600)
	if st, _ := s.Wait(); st.ExitCode() != 0 {
		t.Fatalf("worker exit %d: %s", st.ExitCode(), out.String())
	}
	got := out.String()
	if !strings.HasPrefix(got, "7 g x 644 755\n14 new 600 700\nlooks=") || !strings.HasSuffix(got, "\nafter, longer\n") {
		t.Fatalf("worker read %q; want the change made outside the view within 5 s", got)
	}
	t.Logf("looks until the change showed: %s", strings.Fields(got[strings.Index(got, "looks="):])[0])
}
