//go:build linux && (amd64 || arm64)

package fuse_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCreatedModeIsTheWorkers: a file, directory or node the worker makes
// through the view has the mode the worker asked for under its own umask,
// not one the sidecar's umask narrowed further (a worker with umask 002
// in a group-shared checkout made files its group could not write), and
// keeps the set-group-ID, sticky and inherited set-group-ID bits; in a
// set-group-ID directory it takes the directory's group, also when the
// sidecar is root (it took the worker's).
func TestCreatedModeIsTheWorkers(t *testing.T) {
	old := syscall.Umask(0o022) // the sidecar's, as a user's shell has it
	defer syscall.Umask(old)
	root := workspace(t)
	if err := os.Mkdir(filepath.Join(root, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	const group = 4242 // the shared directory's, which none of the worker's
	if err := os.Chown(filepath.Join(root, "shared"), -1, group); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "shared"), 0o775|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	script := "umask 002 && echo x > f && mkdir d && mkdir -m 2775 s && mkdir -m 1777 t && mkfifo p && mkdir shared/sub && echo z > shared/file && " +
		"umask 077 && echo y > private"
	if code, out := run(t, root, &recorder{}, script); code != 0 {
		t.Fatalf("%q exited %d: %s", script, code, out)
	}
	for name, want := range map[string]os.FileMode{
		"f":           0o664,
		"d":           0o775 | os.ModeDir,
		"s":           0o775 | os.ModeDir | os.ModeSetgid,
		"t":           0o777 | os.ModeDir | os.ModeSticky,
		"p":           0o664 | os.ModeNamedPipe,
		"shared/sub":  0o775 | os.ModeDir | os.ModeSetgid,
		"shared/file": 0o664,
		"private":     0o600,
	} {
		fi, err := os.Lstat(filepath.Join(root, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fi.Mode() != want {
			t.Errorf("%s made through the view has mode %v, want %v", name, fi.Mode(), want)
		}
	}
	for _, name := range []string{"shared/sub", "shared/file"} {
		fi, err := os.Lstat(filepath.Join(root, name))
		if err == nil && fi.Sys().(*syscall.Stat_t).Gid != group {
			t.Errorf("%s made through the view in a set-group-ID directory has group %d, want the directory's, %d", name, fi.Sys().(*syscall.Stat_t).Gid, group)
		}
	}
}
