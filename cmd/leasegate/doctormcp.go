package main

import (
	"context"
	"fmt"

	"github.com/leasegate/leasegate/hooks"
)

// diagnoseMCP checks leasegate's MCP server in each agent's MCP
// configuration: the workspace's and the user's.
func diagnoseMCP(ctx context.Context, root, home string) []hooks.MCPDiagnosis {
	var ms []hooks.MCPDiagnosis
	for _, a := range hooks.Agents() {
		for _, file := range []string{hooks.MCPPath(a, root, false), hooks.MCPPath(a, home, true)} {
			ms = append(ms, hooks.DiagnoseMCP(ctx, a, root, file))
		}
	}
	return ms
}

// printDoctorMCP says, per agent, where the MCP server is registered and
// whether it answered, or that it is not registered.
func printDoctorMCP(ms []hooks.MCPDiagnosis) {
	for _, a := range hooks.Agents() {
		any := false
		for _, m := range ms {
			if m.Agent != a || !m.Registered {
				continue
			}
			any = true
			if m.OK() {
				fmt.Printf("%s: mcp: ok: %q in %s answers initialize (%s)\n", a, hooks.MCPServerName, m.File, m.Server)
			} else {
				fmt.Printf("%s: mcp: NOT WORKING: %s\n", a, m.Problem)
			}
		}
		if !any {
			fmt.Printf("%s: mcp: not registered (`leasegate install %s` registers it)\n", a, a)
		}
	}
}

// registeredMCP is the diagnoses of files that register a server.
func registeredMCP(ms []hooks.MCPDiagnosis) []hooks.MCPDiagnosis {
	out := []hooks.MCPDiagnosis{}
	for _, m := range ms {
		if m.Registered {
			out = append(out, m)
		}
	}
	return out
}

// mcpFailing reports whether a registered MCP server does not answer.
func mcpFailing(ms []hooks.MCPDiagnosis) bool {
	for _, m := range ms {
		if m.Registered && !m.OK() {
			return true
		}
	}
	return false
}
