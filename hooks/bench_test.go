package hooks_test

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkHookClaudeCodeFreeFile measures one `leasegate hook claude-code`
// call on a free file, from process start to exit, against a running
// coordinator: parse, workspace and gating rule (no git process: no ignore
// pattern can match the path), grant and its durable commit. Each call writes another file, so each is an acquire.
// Run it with -benchtime=200x; it reports the median and the 90th
// percentile of the calls.
func BenchmarkHookClaudeCodeFreeFile(b *testing.B) {
	r := newRepo(b)
	r.serve()
	input := func(i int) string {
		return fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"%s/src/f%d.txt"}}`, r.root, r.root, i)
	}
	run := func(i int) time.Duration {
		cmd := exec.Command(leasegateBin, "hook", "claude-code")
		cmd.Dir, cmd.Env, cmd.Stdin = r.root, env(), strings.NewReader(input(i))
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil || len(out) > 0 {
			b.Fatalf("hook call %d: %v: %s", i, err, out)
		}
		return d
	}
	run(-1) // registers the session
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		times = append(times, run(i))
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "ms-median")
	b.ReportMetric(float64(times[len(times)*9/10])/float64(time.Millisecond), "ms-p90")
}
