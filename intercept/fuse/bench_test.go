//go:build linux && (amd64 || arm64)

package fuse_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasegate/leasegate/intercept"
	"github.com/leasegate/leasegate/intercept/fuse"
)

// BenchmarkWriteOpen: the cost of the view to one write-open (and close)
// of a file that exists, with every mutation allowed at once; beside it the
// same loop with no view. The loop runs in a worker that times itself
// (openLoopArg0): starting it and mounting are left out of ns/op.
func BenchmarkWriteOpen(b *testing.B) {
	self := testBinary(b)
	b.Run("native", func(b *testing.B) { reportLoop(b, openLoopUnviewed(b, self)) })
	for _, timeout := range []time.Duration{0, time.Second} {
		b.Run("gated/timeouts="+timeout.String(), func(b *testing.B) { benchGatedOpen(b, self, timeout) })
	}
}

// benchGatedOpen runs the open loop through the view, with the kernel
// keeping lookups and attributes for timeout.
func benchGatedOpen(b *testing.B, self string, timeout time.Duration) {
	{
		root, err := filepath.EvalSymlinks(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		cfg := fuse.DefaultConfig()
		cfg.Argv = []string{self, filepath.Join(root, "f"), strconv.Itoa(b.N)}
		cfg.Env = append(os.Environ(), "FUSE_TEST_WORKER="+openLoopArg0)
		cfg.Dir, cfg.Root, cfg.Decider, cfg.Reap = root, root, intercept.AllowAll, true
		cfg.EntryTimeout, cfg.AttrTimeout = timeout, timeout
		var out buffer
		cfg.Stdout, cfg.Stderr = &out, &out
		s, err := fuse.Start(b.Context(), cfg)
		if err != nil {
			b.Fatalf("Start: %v", err)
		}
		st, _ := s.Wait()
		_ = s.Close()
		<-s.Done()
		if st.ExitCode() != 0 {
			b.Fatalf("open-loop exited %d: %s", st.ExitCode(), out.String())
		}
		reportLoop(b, out.String())
	}
}

// openLoopUnviewed runs the open loop with no view and returns what it
// printed.
func openLoopUnviewed(b *testing.B, self string) string {
	w := exec.Command(self, filepath.Join(b.TempDir(), "f"), strconv.Itoa(b.N))
	w.Env = append(os.Environ(), "FUSE_TEST_WORKER="+openLoopArg0)
	printed, err := w.Output()
	if err != nil {
		b.Fatalf("%s: %v", openLoopArg0, err)
	}
	return string(printed)
}

// reportLoop reports the worker's own timing as ns/op.
func reportLoop(b *testing.B, out string) {
	ns, err := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	if err != nil {
		b.Fatalf("worker output %q: %v", out, err)
	}
	b.ReportMetric(float64(time.Duration(ns).Nanoseconds())/float64(b.N), "ns/op")
}

// BenchmarkGitClone measures what the view alone costs a bulk writer: `git
// clone --no-hardlinks` of a local repository of 5,000 files into the
// view, whose Decider allows at once, against the same clone natively,
// alternating, b.N of each; with the kernel keeping lookups and attributes
// for 0 (the gate's default) and for 1 s. The floor under `leasegate run
// --gate fuse`, whose own figure scripts/bench-run prints.
func BenchmarkGitClone(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	origin := filepath.Join(dir, "origin")
	script := `set -e; mkdir -p "$0"; cd "$0"; git init -q -b main
for d in $(seq 0 49); do mkdir pkg$d; for f in $(seq 0 99); do echo "package p$d // $f" > pkg$d/f$f.go; done; done
git add -A; git -c user.email=b@b -c user.name=b commit -qm files`
	if out, err := exec.Command("sh", "-c", script, origin).CombinedOutput(); err != nil {
		b.Fatalf("origin: %v: %s", err, out)
	}
	for _, timeout := range []time.Duration{0, time.Second} {
		b.Run("timeouts="+timeout.String(), func(b *testing.B) { benchClone(b, dir, origin, timeout) })
	}
}

// benchClone alternates native clones into dir and clones through a view
// of a fresh root in dir.
func benchClone(b *testing.B, dir, origin string, timeout time.Duration) {
	var native, gated time.Duration
	for range b.N {
		into, root := mustTemp(b, dir, "native"), mustTemp(b, dir, "ws")
		start := time.Now()
		if out, err := exec.Command("git", "clone", "-q", "--no-hardlinks", origin, filepath.Join(into, "clone")).CombinedOutput(); err != nil {
			b.Fatalf("native clone: %v: %s", err, out)
		}
		native += time.Since(start)
		cfg := fuse.DefaultConfig()
		cfg.Argv = []string{"git", "clone", "-q", "--no-hardlinks", origin, filepath.Join(root, "clone")}
		cfg.Dir, cfg.Root, cfg.Decider, cfg.Reap = root, root, intercept.AllowAll, true
		cfg.EntryTimeout, cfg.AttrTimeout = timeout, timeout
		var out buffer
		cfg.Stdout, cfg.Stderr = &out, &out
		start = time.Now()
		s, err := fuse.Start(b.Context(), cfg)
		if err != nil {
			b.Fatalf("Start: %v", err)
		}
		st, _ := s.Wait()
		gated += time.Since(start)
		_ = s.Close()
		<-s.Done()
		if st.ExitCode() != 0 {
			b.Fatalf("gated clone exited %d: %s", st.ExitCode(), out.String())
		}
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(native.Seconds()/float64(b.N), "native-s/clone")
	b.ReportMetric(gated.Seconds()/float64(b.N), "view-s/clone")
	b.ReportMetric(float64(gated)/float64(native), "ratio")
}

// mustTemp makes a new directory in dir.
func mustTemp(b *testing.B, dir, prefix string) string {
	d, err := os.MkdirTemp(dir, prefix)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkOutsideWriteSeen measures how long a change made beneath the
// view by another process takes to show in it: the test appends a byte to
// a file while a worker in the view stats it without pause, and ns/op is
// from just before the write to the worker's first stat that shows
// the new size (on CLOCK_MONOTONIC, shared by both processes), with the
// kernel keeping names and attributes for the default second.
func BenchmarkOutsideWriteSeen(b *testing.B) {
	self := testBinary(b)
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(root, "f")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	cfg := fuse.DefaultConfig()
	cfg.Argv = []string{self, path, strconv.Itoa(b.N)}
	cfg.Env = append(os.Environ(), "FUSE_TEST_WORKER="+sizeWatchArg0)
	cfg.Dir, cfg.Root, cfg.Decider, cfg.Reap = root, root, intercept.AllowAll, true
	cfg.Stdout, cfg.Stderr = w, w
	s, err := fuse.Start(b.Context(), cfg)
	w.Close()
	if err != nil {
		b.Fatalf("Start: %v", err)
	}
	defer func() { s.KillTree(); _, _ = s.Wait(); _ = s.Close(); <-s.Done() }()
	lines := bufio.NewScanner(r)
	if !lines.Scan() {
		b.Fatal("the worker ended before its first look")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var total, worst time.Duration
	for i := range b.N {
		written := monotonic()
		if _, err := f.Write([]byte{'x'}); err != nil {
			b.Fatal(err)
		}
		if !lines.Scan() {
			b.Fatalf("the worker ended after %d changes", i)
		}
		seen, err := strconv.ParseInt(strings.TrimSpace(lines.Text()), 10, 64)
		if err != nil {
			b.Fatalf("worker output %q: %v", lines.Text(), err)
		}
		lag := time.Duration(seen - written)
		total, worst = total+lag, max(worst, lag)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(float64(worst.Microseconds()), "worst-µs")
}
