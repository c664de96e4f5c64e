//go:build linux && (amd64 || arm64)

package seccomp_test

import (
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

// reportLoop reports the worker's own timing as ns/op.
func reportLoop(b *testing.B, out string) {
	ns, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
	if err != nil {
		b.Fatalf("open-loop printed %q", out)
	}
	b.ReportMetric(ns/float64(b.N), "ns/op")
}
