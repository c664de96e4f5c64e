package leasegate_test

import (
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
