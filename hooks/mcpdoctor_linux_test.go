//go:build linux

package hooks_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leasegate/leasegate/hooks"
)

// TestDiagnoseMCPKillsASilentServerWhole: a registered command that never
// answers initialize is said not to answer in time (it was said as a read
// of a closed pipe), and is killed with the processes it started (a
// shell's child was left running).
func TestDiagnoseMCPKillsASilentServerWhole(t *testing.T) {
	dir := t.TempDir()
	fake, pidFile := filepath.Join(dir, "leasegate-silent"), filepath.Join(dir, "child.pid")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nsleep 1000 &\necho $! > "+pidFile+"\nwait\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := hooks.MCPPath(hooks.ClaudeCode, t.TempDir(), false)
	if _, err := hooks.InstallMCP(hooks.ClaudeCode, file, fake); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	d := hooks.DiagnoseMCP(ctx, hooks.ClaudeCode, dir, file)
	if d.OK() || !strings.Contains(d.Problem, "no answer within 1s") {
		t.Errorf("DiagnoseMCP of a silent server = %+v, want it said not to answer within 1s", d)
	}
	b, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("the silent server's child pid: %q, %v", b, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	deadline := time.Now().Add(10 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the silent server's child (pid %d) still runs 10 s after the server was killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running reports whether pid is a process that has not ended (a zombie
// has).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
