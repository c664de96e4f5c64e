package coordinator_test

import (
	"slices"
	"testing"
	"testing/synctest"

	"github.com/leasegate/leasegate"
	"github.com/leasegate/leasegate/coordinator"
	"github.com/leasegate/leasegate/gate"
)

// TestFoldedPairs: where the volume folds case, a write of pkg/Foo.GO
// takes its test file as the pair rule spells it (pkg/Foo_test.go), and
// another writer's write of that test file in any case is refused.
func TestFoldedPairs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t, folded, func(c *coordinator.Config) { c.Workspace = t.TempDir() })
		e.mutate("alice", "pkg/Foo.GO")
		if got, want := e.held("alice", gate.KindAuto), []string{"pkg/Foo.GO", "pkg/Foo_test.go"}; !slices.Equal(got, want) {
			t.Fatalf("alice holds %q after writing pkg/Foo.GO, want %q", got, want)
		}
		r, err := e.c.Mutate(e.ctx, leasegate.MutateRequest{Owner: "bob", Op: "write", Paths: []string{"PKG/foo_TEST.go"}, Try: true})
		if err != nil || r.Outcome != leasegate.Denied || r.Holder == nil || r.Holder.Owner.Name != "alice" {
			t.Fatalf("bob's Mutate(PKG/foo_TEST.go) = %+v, %v; want denied, held by alice", r, err)
		}
	})
}
