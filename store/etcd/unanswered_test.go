package etcd_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/gate"
	"github.com/leasegate/leasegate/internal/etcdtest"
)

// TestReadsFailWhileEtcdIsDown: with its only member stopped, CatchUp,
// Reload and Replay fail within DialTimeout, saying so, rather than
// waiting for etcd to come back (the coordinator catches up with its table
// locked, so a wait there kept status from answering).
func TestReadsFailWhileEtcdIsDown(t *testing.T) {
	requireEtcd(t)
	own, err := etcdtest.Start(t.TempDir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(own.Stop)
	cfg := testConfig(t)
	cfg.Endpoints, cfg.DialTimeout = own.Endpoints, time.Second
	l := mustOpen(t, cfg)
	if _, err := l.Append(context.Background(), note("a")); err != nil {
		t.Fatal(err)
	}
	own.StopMember(0)
	none := func(gate.Event) error { return nil }
	reads := map[string]func(context.Context) error{
		"CatchUp": func(ctx context.Context) error { return l.CatchUp(ctx, none) },
		"Reload":  func(ctx context.Context) error { return l.Reload(ctx, 0, none) },
		"Replay":  func(ctx context.Context) error { return l.Replay(ctx, 0, none) },
	}
	for name, read := range reads {
		done := make(chan error, 1)
		go func() { done <- read(context.Background()) }()
		select {
		case err := <-done:
			// A read in flight when the member stops sees its connection
			// lost; the reads after it wait for an answer until DialTimeout.
			if err == nil || !strings.Contains(err.Error(), "etcd did not answer within 1s") && !strings.Contains(err.Error(), "etcd is unreachable") {
				t.Errorf("%s with etcd stopped = %v, want etcd did not answer within 1s or is unreachable", name, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s with etcd stopped still waits after 30 s", name)
		}
	}
}
