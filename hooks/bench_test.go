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
// percentile of the calls. The baseline, measured in between (the machine
// is noisy), is the same command on an event it has nothing to do for: the
// cost of starting the binary and reading the input.
func BenchmarkHookClaudeCodeFreeFile(b *testing.B) {
	r := newRepo(b)
	r.serve()
	write := func(i int) string {
		return fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"%s/src/f%d.txt"}}`, r.root, r.root, i)
	}
	idle := fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":"Notification"}`, r.root)
	run := func(input string) time.Duration {
		cmd := exec.Command(leasegateBin, "hook", "claude-code")
		cmd.Dir, cmd.Env, cmd.Stdin = r.root, env(), strings.NewReader(input)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil || len(out) > 0 {
			b.Fatalf("hook call %s: %v: %s", input, err, out)
		}
		return d
	}
	run(write(-1)) // registers the session
	times := make([]time.Duration, 0, b.N)
	floor := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		times = append(times, run(write(i)))
		b.StopTimer()
		floor = append(floor, run(idle))
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(ms(percentile(times, 50)), "ms-median")
	b.ReportMetric(ms(percentile(times, 90)), "ms-p90")
	b.ReportMetric(ms(percentile(floor, 50)), "ms-floor-median")
}

// percentile returns the p-th percentile of ds, sorting them.
func percentile(ds []time.Duration, p int) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)*p/100]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
