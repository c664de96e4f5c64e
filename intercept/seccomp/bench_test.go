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
	"time"

	"github.com/leasegate/leasegate/intercept"
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
		res := runProgram(b, dir, intercept.AllowAll, "open-loop", filepath.Join(dir, "f"), strconv.Itoa(b.N))
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
		d    intercept.Decider
	}{
		{name: "fast", d: intercept.AllowAll},
		{name: "handoff", d: intercept.DeciderFunc(func(context.Context, intercept.Mutation) error { return nil })},
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

// BenchmarkGitClone measures what interception alone costs a bulk writer:
// `git clone --no-hardlinks` of a local repository of 5,000 files (about
// 20,000 notified syscalls), natively and under a supervisor whose
// Decider allows at once (AllowAll: each path is read and resolved, no
// lease is asked for), alternating, b.N of each. The ratio is the floor
// under `leasegate run`, whose own figure scripts/bench-run prints.
func BenchmarkGitClone(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	dir := tempDir(b)
	origin := filepath.Join(dir, "origin")
	files := map[string]string{}
	for d := range 50 {
		files[filepath.Join("origin", "pkg"+strconv.Itoa(d))+"/"] = ""
		for f := range 100 {
			files[filepath.Join("origin", "pkg"+strconv.Itoa(d), "f"+strconv.Itoa(f)+".go")] = "package p" + strconv.Itoa(d) + " // " + strconv.Itoa(f) + "\n"
		}
	}
	mustWrite(b, dir, files)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", origin, "-c", "user.email=b@b", "-c", "user.name=b"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-qm", "files")
	clone := func(into string) []string {
		return []string{"git", "clone", "-q", "--no-hardlinks", origin, filepath.Join(dir, into)}
	}
	var native, gated time.Duration
	for i := range b.N {
		argv := clone("native" + strconv.Itoa(i))
		start := time.Now()
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			b.Fatalf("native clone: %v: %s", err, out)
		}
		native += time.Since(start)
		start = time.Now()
		if res := run(b, dir, intercept.AllowAll, clone("gated"+strconv.Itoa(i))...); res.code != 0 {
			b.Fatalf("gated clone exited %d: %s", res.code, res.output)
		}
		gated += time.Since(start)
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(native.Seconds()/float64(b.N), "native-s/clone")
	b.ReportMetric(gated.Seconds()/float64(b.N), "intercepted-s/clone")
	b.ReportMetric(float64(gated)/float64(native), "ratio")
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
