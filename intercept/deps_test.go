package intercept_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when the adapters' shared types gain a
// dependency: they are what every adapter and the sidecar import, so they
// import nothing of leasegate and no library.
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/intercept"
	for _, dep := range deptest.Deps(t, pkg) {
		if dep != pkg && (deptest.Under(dep, "github.com/leasegate/leasegate") || deptest.Under(dep, "github.com") || deptest.Under(dep, "golang.org")) {
			t.Errorf("%s depends on %s: it holds types only", pkg, dep)
		}
	}
}
