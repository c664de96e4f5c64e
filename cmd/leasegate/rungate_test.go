package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// captureStderr runs f with os.Stderr sent to a file and returns what f
// wrote there.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	tmp, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	saved := os.Stderr
	os.Stderr = tmp
	defer func() { os.Stderr = saved }()
	f()
	out, err := os.ReadFile(tmp.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestRefuseRun: `run` where there is no seccomp gate names the platform
// and every alternative, and exits 2; under --json with its reason code.
func TestRefuseRun(t *testing.T) {
	var err error
	out := captureStderr(t, func() { err = refuseRun("darwin/arm64") })
	if got := exitCode(err); got != exitUsage {
		t.Errorf("refuseRun exit = %d, want %d", got, exitUsage)
	}
	for _, want := range []string{"darwin/arm64", "seccomp", "leasegate install claude-code|codex|gemini|cursor", "leasegate install git"} {
		if !strings.Contains(out, want) {
			t.Errorf("refuseRun said %q, want it to name %q", out, want)
		}
	}
	jsonErrors = true
	defer func() { jsonErrors = false }()
	var r errorReport
	out = captureStderr(t, func() { _ = refuseRun("windows/amd64") })
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Error.Code != reasonRunUnsupported || r.Error.Exit != exitUsage {
		t.Errorf("refuseRun under --json = %q (%v), want code %s exit %d", out, err, reasonRunUnsupported, exitUsage)
	}
}
