package sidecar

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/benbjohnson/clock"
	"github.com/hashicorp/go-hclog"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/servicetest"
	"github.com/leasegate/leasegate/workspace"
)

var _ Coordinator = (*servicetest.Script)(nil)

// fakeSidecar is a Sidecar of owner alice over svc, trusting its cache
// without bound as a coordinator of one machine answers, for a workspace in a
// temporary directory where every path is gated (no git), with its
// notices in the returned buffer.
func fakeSidecar(t *testing.T, svc *servicetest.Script) (*Sidecar, *bytes.Buffer) {
	t.Helper()
	root := t.TempDir()
	cfg := workspace.DefaultConfig()
	cfg.GateGitIgnored = true
	ws := &workspace.Workspace{Root: root, GitDir: filepath.Join(root, ".git"), CommonDir: filepath.Join(root, ".git"),
		StateDir: filepath.Join(root, ".git", "leasegate"), Config: cfg}
	rule, err := workspace.NewRule(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rule.Close() })
	var notices bytes.Buffer
	clk := clock.NewMock()
	s := &Sidecar{cfg: Config{Name: "alice", Workspace: ws, Client: svc, Notices: &notices, Clock: clk},
		log: hclog.NewNullLogger(), rule: rule, held: newHeld(clk), leased: newLeased(), commits: make(chan struct{}, 1)}
	s.held.hear(clk.Now(), leasegate.Beat{}) // a coordinator of one machine: the cache needs no bound
	s.owner = gate.Owner{Name: "alice", PID: 7}
	s.sess = api.ResumeSession(svc, s.registration(), "alice")
	return s, &notices
}

// The sidecar's owner in these tests is alice.
func contended(path string) servicetest.Answer { return servicetest.Contended("alice", path) }
func blocked(path string) servicetest.Answer   { return servicetest.Blocked("alice", path) }
