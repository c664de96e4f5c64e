package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/internal/envname"
	"github.com/leasegate/leasegate/workspace"
)

// TestServeLock: one holder at a time; a second says who holds it, and
// Serving sees the holder without taking anything.
func TestServeLock(t *testing.T) {
	w := mustFind(t, mustRepo(t))
	if err := w.EnsureStateDir(); err != nil {
		t.Fatal(err)
	}
	if pid, serving := w.Serving(); serving || pid != 0 {
		t.Fatalf("Serving() before any lock = %d, %t; want 0, false", pid, serving)
	}
	l, err := w.LockServe()
	if err != nil {
		t.Fatalf("LockServe() = %v", err)
	}
	var se *workspace.ServingError
	if _, err := w.LockServe(); !errors.As(err, &se) || se.PID != os.Getpid() {
		t.Fatalf("second LockServe() = %v, want a ServingError naming pid %d", err, os.Getpid())
	}
	if !strings.Contains(se.Error(), "another coordinator (pid ") {
		t.Errorf("ServingError says %q", se)
	}
	if pid, serving := w.Serving(); !serving || pid != os.Getpid() {
		t.Fatalf("Serving() while locked = %d, %t; want %d, true", pid, serving, os.Getpid())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, serving := w.Serving(); serving {
		t.Fatal("Serving() after Close = true")
	}
	l, err = w.LockServe()
	if err != nil {
		t.Fatalf("LockServe() after Close = %v", err)
	}
	l.Close()
}

// TestAnchor: removing or replacing the state directory or the ledger is
// seen and named, and so is leasegate.json naming another ledger than the
// one served, LEASEGATE_CLUSTER applied; nothing else is.
func TestAnchor(t *testing.T) {
	const acme = `{"endpoints": ["http://127.0.0.1:2379"], "workspace": "acme/web"}`
	tests := []struct {
		name   string
		env    string // LEASEGATE_CLUSTER, for the start and the check alike
		start  string // leasegate.json at the start; none when empty
		change func(w *workspace.Workspace) error
		want   string
	}{
		{name: "untouched", change: func(*workspace.Workspace) error { return nil }, want: ""},
		{name: "state dir removed", change: func(w *workspace.Workspace) error { return os.RemoveAll(w.StateDir) }, want: "leasegate was removed"},
		{name: "root removed", change: func(w *workspace.Workspace) error { return os.RemoveAll(w.Root) }, want: " was removed"},
		{name: "ledger replaced", change: func(w *workspace.Workspace) error {
			if err := os.Remove(w.LedgerPath()); err != nil {
				return err
			}
			return os.WriteFile(w.LedgerPath(), nil, 0o600)
		}, want: "ledger.db was replaced"},
		{name: "config names a cluster", change: writeConfig(`{"cluster": {"endpoints": ["http://127.0.0.1:2379"], "workspace": "acme/web"}}`),
			want: `leasegate.json now names workspace "acme/web" on etcd [http://127.0.0.1:2379] as the ledger, not /`},
		{name: "config names a cluster, the environment the file", env: workspace.ClusterNone,
			change: writeConfig(`{"cluster": ` + acme + `}`), want: ""},
		{name: "config names another cluster than the environment", env: acme,
			change: writeConfig(`{"cluster": {"endpoints": ["http://10.0.0.5:2379"], "workspace": "other"}}`), want: ""},
		{name: "config names no cluster, the environment one", env: acme, change: writeConfig(`{}`), want: ""},
		{name: "the environment names the ledger, config the pair rules", env: acme,
			change: writeConfig(`{"pairs": []}`), want: "changed its pair rules"},
		{name: "config changes the pair rules", change: writeConfig(`{"pairs": []}`), want: "changed its pair rules"},
		{name: "config changes what is gated", change: writeConfig(`{"exclude": ["tmp/**"]}`), want: ""},
		{name: "config gates git-ignored paths", change: writeConfig(`{"gate_git_ignored": true}`), want: ""},
		{name: "config written again the same", start: `{"exclude": ["tmp/**"]}`, change: writeConfig(`{"exclude": ["tmp/**"]}`), want: ""},
		{name: "config does not load", change: writeConfig(`{"cluster": `), want: ""},
		{name: "config changes the session TTL", start: `{"cluster": ` + acme + `}`,
			change: writeConfig(`{"cluster": {"endpoints": ["http://127.0.0.1:2379"], "workspace": "acme/web", "session_ttl": "5s"}}`), want: `changed the session TTL to "5s"`},
		{name: "config keeps the session TTL", start: `{"cluster": ` + acme + `}`,
			change: writeConfig(`{"cluster": ` + acme + `, "pairs": []}`), want: "changed its pair rules"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(envname.Cluster, tt.env)
			repo := mustRepo(t)
			if tt.start != "" {
				mustWrite(t, repo, workspace.ConfigFile, tt.start)
			}
			w := mustFind(t, repo)
			if err := w.EnsureStateDir(); err != nil {
				t.Fatal(err)
			}
			// Held open, as the coordinator holds its ledger: its inode
			// is not reused.
			f, err := os.Create(w.LedgerPath())
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			a, err := w.Anchor()
			if err != nil {
				t.Fatalf("Anchor() = %v", err)
			}
			if err := tt.change(w); err != nil {
				t.Fatal(err)
			}
			got := a.Removed()
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Removed() = %q, want %q", got, tt.want)
			}
		})
	}
}

// writeConfig is a change that writes leasegate.json.
func writeConfig(cfg string) func(w *workspace.Workspace) error {
	return func(w *workspace.Workspace) error {
		return os.WriteFile(filepath.Join(w.Root, workspace.ConfigFile), []byte(cfg), 0o644)
	}
}
