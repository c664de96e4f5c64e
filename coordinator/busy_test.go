package coordinator_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// TestCallerOutOfDescriptorsIsAskedAgain: a peer whose ancestry cannot be
// read for want of descriptors (EMFILE) is not judged unidentified, which
// denied it for good (OWNER_MISMATCH, a worker's write failed with
// EACCES) and stayed with its connection: it is answered with an error its
// client retries, and its next call reads its ancestry again.
func TestCallerOutOfDescriptorsIsAskedAgain(t *testing.T) {
	ctx := leasegate.WithPeer(context.Background(), gate.Peer{PID: os.Getppid(), UID: uint32(os.Geteuid()), GID: uint32(os.Getegid())})
	coordinator.FailAncestryOnce(t, ctx, syscall.EMFILE)
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		alices := e.checkout("alice", 0, "a.txt")
		release := leasegate.LeaseRequest{Op: gate.OpRelease, Owner: gate.Owner{Name: "alice"}, LeaseID: alices.ID, Token: alices.FencingToken}
		_, err := e.c.Lease(ctx, release)
		var de *gate.DeniedError
		if err == nil || errors.As(err, &de) || !strings.Contains(err.Error(), "try again") {
			t.Fatalf("release by an operator whose ancestry read failed with EMFILE = %v, want an error to retry, no denial", err)
		}
		if _, err := e.c.Lease(ctx, release); err != nil {
			t.Errorf("release by the same operator's connection again = %v, want it released", err)
		}
	})
}
