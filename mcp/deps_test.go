package mcp_test

import (
	"testing"

	"github.com/leasegate/leasegate/internal/deptest"
)

// TestDependencies fails when the MCP server reaches past the api client:
// it talks to the coordinator through api.Client only, and finds its
// owner with the hooks' identity code.
func TestDependencies(t *testing.T) {
	const pkg = "github.com/leasegate/leasegate/mcp"
	deps := deptest.Deps(t, pkg)
	for _, dep := range []string{"github.com/leasegate/leasegate/api", "github.com/leasegate/leasegate/hooks", "github.com/modelcontextprotocol/go-sdk/mcp"} {
		deptest.Require(t, pkg, deps, dep)
	}
	deptest.Forbid(t, pkg, deps,
		"github.com/leasegate/leasegate/coordinator", "github.com/leasegate/leasegate/sidecar", "github.com/leasegate/leasegate/intercept",
		"github.com/leasegate/leasegate/store/bolt", "go.etcd.io/bbolt")
}
