package integration_test

import (
	"strings"
	"testing"
)

// TestSpawnMarkerInherited: a gate's helper or reaper marker variable in
// a user's environment does not turn a leasegate command into a helper
// (which would try to exec its arguments as a worker): status answers.
func TestSpawnMarkerInherited(t *testing.T) {
	r := newRepo(t, nil)
	for _, kv := range []string{"LEASEGATE_SPAWN_HELPER=fuse", "LEASEGATE_SPAWN_REAPER=fuse",
		"LEASEGATE_SPAWN_HELPER=seccomp", "LEASEGATE_SPAWN_REAPER=seccomp"} {
		out, errOut, code := r.lgWith("", kv, "status")
		if code != 0 || !strings.Contains(out, "coordinator pid") {
			t.Errorf("%s leasegate status = %d, %q, %q; want the status", kv, code, out, errOut)
		}
	}
}
