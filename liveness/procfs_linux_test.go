package liveness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckProcfs(t *testing.T) {
	if err := CheckProcfs(); err != nil {
		t.Fatalf("CheckProcfs() on this machine's /proc = %v, want nil", err)
	}
	dir := t.TempDir()
	if err := os.Symlink("5065", filepath.Join(dir, "self")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		root    string
		pid     int
		wantErr string // "" means nil
	}{
		{name: "own namespace", root: dir, pid: 5065},
		{name: "another namespace", root: dir, pid: 1, wantErr: "self is 5065, this process is pid 1 in its own"},
		{name: "not mounted", root: filepath.Join(dir, "empty"), pid: 1, wantErr: "self cannot be read"},
	}
	for _, tt := range tests {
		err := checkProcfs(tt.root, tt.pid)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%s: checkProcfs = %v, want nil", tt.name, err)
			}
			continue
		}
		want := ErrForeignProcfs
		if tt.name == "not mounted" {
			want = ErrNoProcfs
		}
		if !errors.Is(err, want) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: checkProcfs = %v, want %v saying %q", tt.name, err, want, tt.wantErr)
		}
	}
}
