package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeMissingHookBlocks: when the installed hook cannot run
// (its binary moved or deleted), the real Claude Code blocks the write
// instead of letting it through ungated: install writes the Claude Code
// handler with onFailure "block", as it writes Cursor's with failClosed.
func TestClaudeCodeMissingHookBlocks(t *testing.T) {
	r := newRepo(t, nil)
	m := newMessagesMock(t, "Write", fmt.Sprintf(`{"file_path":%q,"content":"new\n"}`, filepath.Join(r.dir, "free.txt")))
	c := newClaudeRun(t, r, m)
	settings := r.read(".claude/settings.local.json")
	gone := filepath.Join(t.TempDir(), "moved", "leasegate")
	r.write(".claude/settings.local.json", strings.ReplaceAll(settings, fmt.Sprintf("%q", bin), fmt.Sprintf("%q", gone)))
	out, _ := c.run(t, "write free.txt", "Write")
	if got, err := os.ReadFile(filepath.Join(r.dir, "free.txt")); err == nil {
		t.Fatalf("free.txt = %q: Claude Code wrote it though its leasegate hook could not run\n%s", got, out)
	}
}
