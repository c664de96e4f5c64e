package hooks

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"github.com/leasegate/leasegate/internal/envname"
)

// InheritAgentEnv sets in this process each leasegate variable
// (LEASEGATE_*) that agent a's own process has and this one lacks, and
// reports whether it set any. Gemini CLI hands its hooks only a short
// list of variables when it runs in GitHub Actions (GITHUB_SHA set, or
// SURFACE=Github): a hook under `leasegate run` then knows
// neither its owner (LEASEGATE_AS) nor its sidecar (LEASEGATE_SIDECAR),
// and would take leases as a session of its own that the worker's own
// writes then wait on. The other agents pass their environment on, so
// only Gemini CLI's process is read (/proc/PID/environ: Linux, where
// `run` works; elsewhere nothing is set).
func InheritAgentEnv(a Agent) bool {
	if a != Gemini {
		return false
	}
	p, ok := findAgent(a, os.Getppid(), "")
	if !ok {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/environ")
	if err != nil {
		return false
	}
	set := false
	for _, kv := range bytes.Split(data, []byte{0}) {
		k, v, ok := strings.Cut(string(kv), "=")
		if _, have := os.LookupEnv(k); !ok || have || !strings.HasPrefix(k, envname.Prefix) {
			continue
		}
		set = os.Setenv(k, v) == nil || set
	}
	return set
}
