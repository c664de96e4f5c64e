package coordinator_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestHeldGitLockMalformedRefused: the git lock file a requester says its
// process holds is shown on terminals and in reports, so a name that is
// no lock file's, holds a control character or is longer than a path is
// refused, naming the field, and nothing is leased.
func TestHeldGitLockMalformedRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		for _, lock := range []string{"index", ".git/index.lock\n", "\x1b[2J.lock", strings.Repeat("a", 4097) + ".lock"} {
			_, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}, HoldsGitLock: lock})
			var de *gate.DeniedError
			if !errors.As(err, &de) || de.Reason != gate.ReasonInputInvalid || !strings.Contains(de.Message, "holds_git_lock") {
				t.Errorf("Mutate holding git lock %.20q = %v, want INPUT_SCHEMA_INVALID naming holds_git_lock", lock, err)
			}
		}
		if s := mustStatus(e.t, e.c); len(s.Leases) != 0 {
			t.Errorf("leases after the refused writes: %v", s.Leases)
		}
		r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"a.txt"}, HoldsGitLock: ".git/index.lock"})
		if err != nil || r.Outcome != leasegate.Granted {
			t.Errorf("Mutate holding .git/index.lock = %+v, %v; want granted", r, err)
		}
	})
}
