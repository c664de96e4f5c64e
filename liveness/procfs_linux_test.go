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

func TestCheckHidepid(t *testing.T) {
	const plain = "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	const hidden = plain + "85 67 0:40 / /proc rw,relatime shared:5 - proc proc rw,gid=100,hidepid=invisible\n"
	tests := []struct {
		name   string
		mounts string
		euid   int
		groups []int
		hidden bool
	}{
		{name: "no hidepid", mounts: plain, euid: 1000, groups: []int{1000}},
		{name: "hidepid over it", mounts: hidden, euid: 1000, groups: []int{1000}, hidden: true},
		{name: "hidepid, in its gid", mounts: hidden, euid: 1000, groups: []int{1000, 100}},
		{name: "hidepid, root", mounts: hidden, euid: 0, groups: []int{0}},
		{name: "hidepid=off", mounts: "1 2 0:3 / /proc rw - proc proc rw,hidepid=off\n", euid: 1000},
		{name: "hidepid=2 elsewhere", mounts: plain + "9 8 0:4 / /mnt/p rw - proc proc rw,hidepid=2\n", euid: 1000},
		{name: "hidepid=2", mounts: "1 2 0:3 / /proc rw - proc proc rw,hidepid=2\n", euid: 1000, hidden: true},
	}
	for _, tt := range tests {
		err := checkHidepid(tt.mounts, tt.euid, tt.groups)
		if got := errors.Is(err, ErrHiddenProcs); got != tt.hidden {
			t.Errorf("%s: checkHidepid = %v, want hidden %v", tt.name, err, tt.hidden)
		}
	}
}
