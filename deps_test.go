package leasegate_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when the root package reaches beyond the domain:
// it holds types and one interface, so besides the standard library it may
// import gate and blocker only, and no package that does I/O itself.
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate"
	deps := deptest.NonStandardDeps(t, pkg)
	deptest.Require(t, pkg, deps, "github.com/leasegate/leasegate/gate")
	deptest.Only(t, pkg, deps,
		deptest.WithDeps(t, "github.com/leasegate/leasegate/gate", "github.com/leasegate/leasegate/blocker")...)
	deptest.Forbid(t, pkg, deptest.Imports(t, pkg),
		"os", "net", "syscall", "io/fs", "path/filepath", "os/exec", "log", "log/slog")
}
