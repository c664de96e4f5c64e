//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leasegate/leasegate/intercept/seccomp"
)

// BenchmarkWriteOpen measures one open(O_WRONLY|O_CREAT) + close of an
// existing file, natively and gated with a Decider that allows at once.
// A worker program does b.N of them and times itself, so process start-up
// is not counted; ns/op is its figure.
func BenchmarkWriteOpen(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("native", func(b *testing.B) {
		dir := tempDir(b)
		cmd := exec.Command(self, filepath.Join(dir, "f"), strconv.Itoa(b.N))
		cmd.Env = append(os.Environ(), helperEnv+"=open-loop")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("open-loop: %v: %s", err, out)
		}
		reportLoop(b, string(out))
	})
	b.Run("gated", func(b *testing.B) {
		dir := tempDir(b)
		res := runProgram(b, dir, seccomp.AllowAll, "open-loop", filepath.Join(dir, "f"), strconv.Itoa(b.N))
		if res.code != 0 {
			b.Fatalf("open-loop exited %d: %s", res.code, res.output)
		}
		reportLoop(b, res.output)
	})
}

// BenchmarkNotifiedSyscall measures what the gate adds to one notified
// syscall: a worker creates (O_CREAT|O_EXCL) and unlinks a file through a
// relative path, b.N times, natively and then gated, in the same run. Each
// round is two notified syscalls; the metrics are per syscall, with the
// gated/native ratio. "fast" uses AllowAll, which the supervisor answers
// as it receives the notification; "handoff" a plain DeciderFunc, whose
// Decide runs on its own goroutine as a lease request would.
func BenchmarkNotifiedSyscall(b *testing.B) {
	deciders := []struct {
		name string
		d    seccomp.Decider
	}{
		{name: "fast", d: seccomp.AllowAll},
		{name: "handoff", d: seccomp.DeciderFunc(func(context.Context, seccomp.Mutation) error { return nil })},
	}
	for _, tt := range deciders {
		b.Run(tt.name, func(b *testing.B) {
			dir := tempDir(b)
			mustWrite(b, dir, map[string]string{"a/b/": ""})
			args := []string{filepath.Join("a", "b", "f"), strconv.Itoa(b.N)}
			native := runNative(b, dir, "churn-loop", args...)
			res := runProgram(b, dir, tt.d, "churn-loop", args...)
			if res.code != 0 {
				b.Fatalf("churn-loop exited %d: %s", res.code, res.output)
			}
			gated := parseNanos(b, res.output)
			perCall := func(ns float64) float64 { return ns / float64(2*b.N) }
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(perCall(native), "native-ns/syscall")
			b.ReportMetric(perCall(gated), "gated-ns/syscall")
			b.ReportMetric(perCall(gated-native), "added-ns/syscall")
			b.ReportMetric(gated/native, "ratio")
		})
	}
}

// runNative runs a worker program ungated in dir and returns the
// nanoseconds it printed.
func runNative(b *testing.B, dir, name string, args ...string) float64 {
	b.Helper()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), helperEnv+"="+name)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%s: %v: %s", name, err, out)
	}
	return parseNanos(b, string(out))
}

// parseNanos reads the nanoseconds a worker program printed.
func parseNanos(b *testing.B, out string) float64 {
	b.Helper()
	ns, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
	if err != nil {
		b.Fatalf("worker printed %q", out)
	}
	return ns
}

// reportLoop reports the worker's own timing as ns/op.
func reportLoop(b *testing.B, out string) {
	b.ReportMetric(parseNanos(b, out)/float64(b.N), "ns/op")
}
