package integration_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaudeCodeMissingHookBlocks: when the installed hook cannot answer
// (its binary moved or deleted, or killed by a signal while it answers),
// the real Claude Code blocks the write instead of letting it through
// ungated, and names the hook to the model: install writes the Claude Code
// handler with onFailure "block", as it writes Cursor's with failClosed.
func TestClaudeCodeMissingHookBlocks(t *testing.T) {
	for _, f := range hookFailures {
		t.Run(f.name, func(t *testing.T) {
			r := newRepo(t, nil)
			m := newMessagesMock(t, "Write", fmt.Sprintf(`{"file_path":%q,"content":"new\n"}`, filepath.Join(r.dir, "free.txt")))
			c := newClaudeRun(t, r, m)
			exe := movableLeasegate(t)
			settings := r.read(".claude/settings.local.json")
			r.write(".claude/settings.local.json", strings.ReplaceAll(settings, fmt.Sprintf("%q", bin), fmt.Sprintf("%q", exe)))
			if err := f.apply(exe); err != nil {
				t.Fatal(err)
			}
			out, _ := c.run(t, "write free.txt", "Write")
			if got, err := os.ReadFile(filepath.Join(r.dir, "free.txt")); err == nil {
				t.Fatalf("free.txt = %q: Claude Code wrote it though its leasegate hook could not answer\n%s", got, out)
			}
			// Claude Code tells the model which hook failed and that it blocks.
			if _, results := m.seen(); len(results) == 0 || !strings.Contains(results[0], exe) || !strings.Contains(results[0], "blocking") {
				t.Errorf("the model was not told that %s failed and blocks; results %q\n%s", exe, results, out)
			}
		})
	}
}
