package hooks_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHookHoldsEveryNameOfAFile: src/link.go is a hard link to
// src/app.go made before any lease. Session A writes src/app.go; session
// B's write of src/link.go meets A's lease like a write of src/app.go
// would: retried once, then blocked.
func TestHookHoldsEveryNameOfAFile(t *testing.T) {
	r := newRepo(t)
	r.write("src/app.go", "package app\n")
	if err := os.Link(filepath.Join(r.root, "src/app.go"), filepath.Join(r.root, "src/link.go")); err != nil {
		t.Fatal(err)
	}
	r.serve()
	write := func(session, path string) string {
		return `{"session_id":"` + session + `","cwd":"` + r.root + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + path + `"}}`
	}
	sameOutput(t, "session A writes src/app.go", r.leasegate(nil, write("A", r.root+"/src/app.go"), "hook", "claude-code"), allow)
	got := r.leasegate(nil, write("B", r.root+"/src/link.go"), "hook", "claude-code")
	reps := r.blockers()
	if len(reps) != 1 || reps[0].Requester.Name != "cc-B" || reps[0].Holder.Owner.Name != "cc-A" || reps[0].Path != "src/link.go" {
		t.Fatalf("blockers = %+v, want cc-B's write of src/link.go blocked by cc-A", reps)
	}
	sameOutput(t, "session B writes src/link.go", got, wantBlocked(reps[0]))
}
