package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/api"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/mcp"
	"github.com/leasegate/leasegate/workspace"
)

// TestCheckSaysRefused: leases_check says that leasegate's state directory
// and the operator's leasegate.json are refused, and why, as the sidecar
// and the hooks refuse writes there; it needs no coordinator to say so,
// and the path's resource says the same.
func TestCheckSaysRefused(t *testing.T) {
	w := newWorld(t)
	state, in := w.ws.Rel(w.ws.StateDir)
	if !in {
		t.Fatalf("state dir %s is not under the root %s", w.ws.StateDir, w.ws.Root)
	}
	cs := w.session(t, "alice", nil)
	var out mcp.CheckOutput
	paths := []string{state + "/ledger.db", workspace.ConfigFile, state + "/**", w.ws.Root + "/" + workspace.ConfigFile, "a.go", "*.json", ".git/config"}
	txt := mustCall(t, cs, "leases_check", map[string]any{"paths": paths}, &out)
	want := []struct{ state, why string }{
		{mcp.Refused, "state dir"}, {mcp.Refused, "operator file"}, {mcp.Refused, "state dir"}, {mcp.Refused, "operator file"},
		{mcp.Free, ""}, {mcp.Free, ""}, {mcp.NotGated, "git"},
	}
	if len(out.Paths) != len(want) {
		t.Fatalf("check = %+v, want %d paths", out, len(want))
	}
	for i, pc := range out.Paths {
		if pc.State != want[i].state || !strings.Contains(pc.Reason, want[i].why) || (want[i].why == "") != (pc.Reason == "") {
			t.Errorf("%s = %s %q, want %s %q", paths[i], pc.State, pc.Reason, want[i].state, want[i].why)
		}
	}
	for _, line := range []string{"leasegate.json: refused\n  operator file: ", state + "/ledger.db: refused\n  state dir: "} {
		if !strings.Contains(txt, line) {
			t.Errorf("text lacks %q:\n%s", line, txt)
		}
	}

	down := w.session(t, "alice", func(context.Context) (mcp.Coordinator, error) {
		return nil, fmt.Errorf("%w: no coordinator answers", api.ErrUnavailable)
	})
	out = mcp.CheckOutput{}
	mustCall(t, down, "leases_check", map[string]any{"paths": []string{workspace.ConfigFile}}, &out)
	if len(out.Paths) != 1 || out.Paths[0].State != mcp.Refused {
		t.Errorf("check with no coordinator = %+v, want leasegate.json refused", out)
	}
	res, err := cs.ReadResource(w.ctx, &sdk.ReadResourceParams{URI: mcp.PathURI(workspace.ConfigFile)})
	if err != nil {
		t.Fatal(err)
	}
	var pc mcp.PathCheck
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &pc); err != nil || pc.State != mcp.Refused || pc.Reason == "" {
		t.Errorf("resource = %s, %v; want refused with a reason", res.Contents[0].Text, err)
	}
}

// TestAcquireRefusesWhatNoWorkerMayWrite: lease_acquire of leasegate.json
// or of the state directory is an input error naming why, and nothing is
// granted; a glob that merely may match leasegate.json is leased.
func TestAcquireRefusesWhatNoWorkerMayWrite(t *testing.T) {
	w := newWorld(t)
	cs := w.session(t, "alice", nil)
	for _, paths := range [][]string{{workspace.ConfigFile}, {"a.go", ".git/leasegate/x"}, {".git/leasegate/**"}} {
		code, msg := toolError(t, cs, "lease_acquire", map[string]any{"paths": paths})
		if code != gate.ReasonInputInvalid || !strings.Contains(msg, "cannot be leased") {
			t.Errorf("lease_acquire %q = %s %q, want INPUT_SCHEMA_INVALID saying it cannot be leased", paths, code, msg)
		}
	}
	if st, err := w.client.Status(w.ctx); err != nil || len(st.Leases) != 0 {
		t.Fatalf("status after refused acquires = %d leases, %v; want none", len(st.Leases), err)
	}
	mustCall(t, cs, "lease_acquire", map[string]any{"paths": []string{"*.json"}}, nil)
}

// warningCoordinator answers Check as its coordinator does, with a ledger
// warning, as one without its etcd session answers.
type warningCoordinator struct{ mcp.Coordinator }

func (w warningCoordinator) Check(ctx context.Context, paths []string) (leasegate.CheckView, error) {
	v, err := w.Coordinator.Check(ctx, paths)
	v.Warning = "no session on the shared lease table"
	return v, err
}

// TestCheckCarriesTheLedgerWarning: while the coordinator warns of its
// ledger (no etcd session), leases_check passes the warning on, in text
// and structure, so a path said free is not taken as surely free.
func TestCheckCarriesTheLedgerWarning(t *testing.T) {
	w := newWorld(t)
	cs := w.session(t, "alice", func(ctx context.Context) (mcp.Coordinator, error) {
		cl, err := w.connect(ctx)
		return warningCoordinator{cl}, err
	})
	var out mcp.CheckOutput
	txt := mustCall(t, cs, "leases_check", map[string]any{"paths": []string{"a.go"}}, &out)
	if out.Warning != "no session on the shared lease table" || !strings.HasPrefix(txt, "WARNING: no session on the shared lease table; a path said free may be held") {
		t.Errorf("check = %+v, text %q; want the warning in both", out, txt)
	}
}
