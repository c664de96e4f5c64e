//go:build linux && (amd64 || arm64)

package seccomp_test

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLookupFailuresAsNative checks that a path the kernel cannot look up
// fails under the gate as it fails without it: a ".." after a missing
// directory or after a file is not taken lexically, and a trailing slash
// still asks for a directory, so the open the supervisor makes in the
// worker's place creates or changes nothing the kernel would have refused.
func TestLookupFailuresAsNative(t *testing.T) {
	tests := []struct {
		name, script, made string
	}{
		{name: "dot-dot after missing dir", script: "echo x > nodir/../f", made: "f"},
		{name: "dot-dot after file", script: "echo x > file/../g", made: "g"},
		{name: "existing file after missing dir", script: "echo x > nodir/../file", made: ""},
		{name: "mkdir after file", script: "mkdir file/../d", made: "d"},
		{name: "trailing slash on a file", script: "echo x > file/", made: ""},
		{name: "trailing slash on a new name", script: "echo x > new/", made: "new"},
		{name: "append through a trailing slash", script: "echo x >> file/", made: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			native, gated := tempDir(t), tempDir(t)
			files := map[string]string{"file": "old"}
			mustWrite(t, native, files)
			mustWrite(t, gated, files)
			cmd := exec.Command("sh", "-c", tt.script)
			cmd.Dir = native
			nativeErr := cmd.Run()
			if nativeErr == nil {
				t.Fatalf("%q succeeded without the gate: the case tests nothing", tt.script)
			}
			res := sh(t, gated, &recorder{}, tt.script)
			if res.code == 0 {
				t.Errorf("%q under the gate exited 0, want it to fail as without the gate (%v)", tt.script, nativeErr)
			}
			if tt.made != "" {
				assertMissing(t, filepath.Join(gated, tt.made))
			}
			if got := mustRead(t, filepath.Join(gated, "file")); got != "old" {
				t.Errorf("file = %q after %q, want it unchanged", got, tt.script)
			}
		})
	}
}
