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
	mustEnd(t, pidFile)
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

// TestDiagnoseKillsASilentHookWhole: an installed hook command that never
// answers doctor's harmless call is said not to answer in time, and is
// killed with the processes it started (the shell running it was killed
// alone, and doctor waited for its child to close stderr).
func TestDiagnoseKillsASilentHookWhole(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, root := t.TempDir(), t.TempDir()
	fake, pidFile := filepath.Join(dir, "leasegate-silent"), filepath.Join(dir, "child.pid")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nsleep 1000 &\necho $! > "+pidFile+"\nwait\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := hooks.SettingsPath(hooks.Cursor, root)
	if _, err := hooks.Install(hooks.Cursor, path, fake); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := make(chan hooks.Diagnosis, 1)
	go func() {
		done <- hooks.Diagnose(ctx, hooks.Cursor, hooks.DoctorConfig{Root: root, File: path, Home: t.TempDir()})
	}()
	var d hooks.Diagnosis
	select {
	case d = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Diagnose of a silent hook did not return within 20 s")
	}
	if !strings.Contains(strings.Join(d.Problems, "; "), "does not answer a harmless call within 1s") {
		t.Errorf("Diagnose of a silent hook: problems %q, want it said not to answer within 1s", d.Problems)
	}
	mustEnd(t, pidFile)
}

// mustEnd waits until the process whose pid is in pidFile has ended.
func mustEnd(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("the child's pid: %q, %v", b, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	deadline := time.Now().Add(10 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the child (pid %d) still runs 10 s after the command was killed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAskCodexKillsASilentCodexWhole: a codex program whose app server
// never answers is killed with the processes it started when the ask
// times out (codex from npm is node running the native program, which
// was left running).
func TestAskCodexKillsASilentCodexWhole(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	fake, pidFile := filepath.Join(dir, "codex"), filepath.Join(dir, "child.pid")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nsleep 1000 &\necho $! > "+pidFile+"\nwait\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := hooks.AskCodexTrust(ctx, fake, root, filepath.Join(root, ".codex", "hooks.json"))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("AskCodexTrust of a codex that never answers = nil")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("AskCodexTrust of a silent codex did not return within 20 s")
	}
	mustEnd(t, pidFile)
}
