package store_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// allowedDeps are the only non-standard packages the contract and its
// conformance suite may reach, even transitively (with what these reach
// themselves): no backend, no database or network client.
var allowedDeps = map[string][]string{
	"github.com/leasegate/leasegate/store": {
		"github.com/leasegate/leasegate/gate",
	},
	"github.com/leasegate/leasegate/store/storetest": {
		"github.com/leasegate/leasegate/gate",
		"github.com/leasegate/leasegate/store",
	},
}

func TestDependencies(t *testing.T) {
	for pkg, allowed := range allowedDeps {
		deps := deptest.NonStandardDeps(t, pkg)
		deptest.Require(t, pkg, deps, pkg)
		deptest.Only(t, pkg, deps, deptest.WithDeps(t, allowed...)...)
	}
}
