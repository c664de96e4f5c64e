package leasegate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/leasegate/leasegate"
)

// TestLedgerViewSame: two views are one ledger when they name the same
// file, or the same workspace on the same endpoints in any order,
// whatever named each; another workspace, another endpoint or the file
// beside a cluster is another ledger.
func TestLedgerViewSame(t *testing.T) {
	acme := leasegate.LedgerView{Endpoints: []string{"http://a:2379", "http://b:2379"}, Workspace: "acme/web", From: "leasegate.json"}
	file := leasegate.LedgerView{File: "/w/.git/leasegate/ledger.db"}
	tests := []struct {
		name string
		a, b leasegate.LedgerView
		want bool
	}{
		{name: "same cluster, other order and source", a: acme,
			b: leasegate.LedgerView{Endpoints: []string{"http://b:2379", "http://a:2379"}, Workspace: "acme/web", From: "LEASEGATE_CLUSTER"}, want: true},
		{name: "same file", a: file, b: leasegate.LedgerView{File: file.File, From: "LEASEGATE_CLUSTER"}, want: true},
		{name: "other workspace", a: acme, b: leasegate.LedgerView{Endpoints: acme.Endpoints, Workspace: "acme/api"}, want: false},
		{name: "other endpoints", a: acme, b: leasegate.LedgerView{Endpoints: []string{"http://a:2379"}, Workspace: "acme/web"}, want: false},
		{name: "file and cluster", a: acme, b: file, want: false},
	}
	for _, tt := range tests {
		if got := tt.a.Same(tt.b); got != tt.want {
			t.Errorf("%s: %v.Same(%v) = %t, want %t", tt.name, tt.a, tt.b, got, tt.want)
		}
	}
}

// TestLedgerViewSameAsking: etcd is asked only when the workspace is the
// same and the endpoints differ, and its answer decides; an answer it
// could not give, or no way to ask, leaves two ledgers.
func TestLedgerViewSameAsking(t *testing.T) {
	acme := leasegate.LedgerView{Endpoints: []string{"http://127.0.0.1:2379"}, Workspace: "acme/web"}
	local := leasegate.LedgerView{Endpoints: []string{"http://localhost:2379"}, Workspace: "acme/web"}
	down := errors.New("etcd down")
	tests := []struct {
		name    string
		b       leasegate.LedgerView
		answer  bool
		err     error
		nilAsk  bool
		want    bool
		asked   bool
		wantErr error
	}{
		{name: "same endpoints", b: acme, want: true},
		{name: "other address, one cluster", b: local, answer: true, want: true, asked: true},
		{name: "other address, another cluster", b: local, answer: false, want: false, asked: true},
		{name: "etcd not asked", b: local, err: down, want: false, asked: true, wantErr: down},
		{name: "no way to ask", b: local, nilAsk: true, want: false},
		{name: "other workspace", b: leasegate.LedgerView{Endpoints: local.Endpoints, Workspace: "acme/api"}, answer: true, want: false},
		{name: "file", b: leasegate.LedgerView{File: "/w/.git/leasegate/ledger.db"}, answer: true, want: false},
	}
	for _, tt := range tests {
		asked := false
		ask := leasegate.ClusterAsker(func(context.Context, []string, []string) (bool, error) {
			asked = true
			return tt.answer, tt.err
		})
		if tt.nilAsk {
			ask = nil
		}
		got, err := acme.SameAsking(context.Background(), tt.b, ask)
		if got != tt.want || !errors.Is(err, tt.wantErr) || asked != tt.asked {
			t.Errorf("%s: SameAsking(%v) = %t, %v (asked %t); want %t, %v (asked %t)", tt.name, tt.b, got, err, asked, tt.want, tt.wantErr, tt.asked)
		}
	}
}
