package coordinator_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/gate"
)

// TestMutateCoversEveryNameAfterReplay: a write of f.txt with its file's
// identity is recorded with it; bob's write of g.txt, another name of the
// same file, starts the contention protocol naming f.txt, before and after
// a restart replays the ledger.
func TestMutateCoversEveryNameAfterReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		file := gate.File{Path: "f.txt", Dev: 2049, Ino: 77}
		r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "alice", Op: "write", Paths: []string{"f.txt"}, Files: []gate.File{file}})
		if err != nil || r.Outcome != leasegate.Granted {
			t.Fatalf("Mutate(alice, f.txt) = %v, %v; want granted", r.Outcome, err)
		}
		grants := e.events(gate.EventGranted)
		if len(grants) != 1 || len(grants[0].Lease.Scope.Files) != 1 || grants[0].Lease.Scope.Files[0] != file {
			t.Fatalf("ledger grants %+v, want one recording %+v", grants, file)
		}
		link := gate.File{Path: "./g.txt", Dev: 2049, Ino: 77}
		for _, restart := range []bool{false, true} {
			if restart {
				e.reopen()
			}
			r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"g.txt"}, Files: []gate.File{link}})
			if err != nil || r.Outcome != leasegate.Contended || r.Holder.Owner.Name != "alice" {
				t.Fatalf("restart %v: Mutate(bob, g.txt) = %+v, %v; want contended by alice", restart, r, err)
			}
			if !strings.Contains(r.Message, "g.txt (the same file as f.txt) is held by alice") {
				t.Fatalf("restart %v: message %q does not name the holder's path", restart, r.Message)
			}
		}
	})
}
