package mcp_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/mcp"
)

// wentBackCoordinator answers Status as its coordinator does, adding that
// the shared ledger went back, as a coordinator whose etcd was wiped says.
type wentBackCoordinator struct {
	mcp.Coordinator
	wb leasegate.WentBack
}

func (w wentBackCoordinator) Status(ctx context.Context) (leasegate.Status, error) {
	st, err := w.Coordinator.Status(ctx)
	st.WentBack = &w.wb
	return st, err
}

// TestStatusCarriesLedgerWentBack: leases_status passes on that the shared
// ledger went back, and the leases it lost, in its structure as status
// --json does (ledger_went_back) and in its text as status does.
func TestStatusCarriesLedgerWentBack(t *testing.T) {
	w := newWorld(t)
	wb := leasegate.WentBack{At: time.Date(2026, 11, 28, 0, 1, 2, 0, time.UTC), Seen: 40, Ends: 12, Cause: "etcd revision 9 below 31",
		Lost:      []leasegate.LostLease{{ID: "01JLOST", Owner: "bob", Kind: gate.KindAuto, Paths: []string{"a.go"}}},
		LostCount: 1}
	cs := w.session(t, "alice", func(ctx context.Context) (mcp.Coordinator, error) {
		cl, err := w.connect(ctx)
		return wentBackCoordinator{cl, wb}, err
	})
	var out mcp.StatusOutput
	txt := mustCall(t, cs, "leases_status", map[string]any{}, &out)
	got := out.WentBack
	if got == nil || got.At != "2026-11-28T00:01:02Z" || got.SeenSeq != 40 || got.EndsSeq != 12 || got.Cause != wb.Cause ||
		got.LostCount != 1 || len(got.Lost) != 1 || !reflect.DeepEqual(got.Lost[0], mcp.LostLease{ID: "01JLOST", Owner: "bob", Kind: "auto", Paths: []string{"a.go"}}) {
		t.Errorf("leases_status ledger_went_back = %+v, want the went-back of %+v", got, wb)
	}
	if want := "WARNING: " + wb.Summary() + "\n"; !strings.Contains(txt, want) {
		t.Errorf("leases_status text lacks %q:\n%s", want, txt)
	}

	plain := w.session(t, "alice", nil)
	out = mcp.StatusOutput{}
	txt = mustCall(t, plain, "leases_status", map[string]any{}, &out)
	if out.WentBack != nil || strings.Contains(txt, "went back") {
		t.Errorf("leases_status of a ledger that did not go back = %+v\n%s\nwant no ledger_went_back", out.WentBack, txt)
	}
}
