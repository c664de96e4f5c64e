package main

import (
	"context"
	"flag"
	"testing"
)

// TestOperatorActsNameTheUser: with $USER unset (cron, containers,
// systemd units), resolve records the user running it, as the console
// records its resolutions and evict its evictions (operatorName), rather
// than "" (which the coordinator records as "operator"): with evict's
// "admin" before, one person was three names in the history.
func TestOperatorActsNameTheUser(t *testing.T) {
	t.Setenv("USER", "")
	want := operatorName()
	if want == "" {
		t.Fatal("operatorName() is empty")
	}
	var fs *flag.FlagSet
	flagCollector = func(f *flag.FlagSet) { fs = f }
	defer func() { flagCollector = nil }()
	_ = cmdResolve(context.Background(), nil)
	if got := fs.Lookup("by").DefValue; got != want {
		t.Errorf("resolve --by defaults to %q, want %q", got, want)
	}
}
