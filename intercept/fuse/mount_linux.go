//go:build amd64 || arm64

package fuse

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/leasegate/leasegate/intercept/spawn"
	"github.com/leasegate/leasegate/internal/envname"
)

// gate is the FUSE gate's part in starting a worker (intercept/spawn): the
// helper mounts the view over the workspace in a mount namespace of its
// own and hands over the /dev/fuse fd that serves it.
var gate = spawn.Gate{Name: "fuse", Setup: mountSelf, Errors: []error{ErrNoFuse, ErrMountRefused}}

// MaybeRunChild turns the process into the gate's helper (or, with
// Config.Reap, its reaper) if it was started as one by Start, and
// otherwise returns at once. Call it first thing in main (and in TestMain
// of tests that use Start), before any goroutines or flag parsing.
func MaybeRunChild() { spawn.MaybeRun(gate) }

// mountSelf runs in the helper, on the thread that will exec the worker.
// It enters a mount namespace of its own (a thread's: unshare also gives
// it a working directory of its own), mounts the view over the root, hands
// the fd to the supervisor, and once the supervisor serves it enters its
// working directory again, so that the worker's is the one in the view
// rather than the directory the mount now hides.
func mountSelf(handOver func(fd int) error) error {
	root := os.Getenv(envname.FuseRoot)
	var readOnly []string
	if err := json.Unmarshal([]byte(os.Getenv(envname.FuseReadOnly)), &readOnly); err != nil {
		return fmt.Errorf("%s: %w", envname.FuseReadOnly, err)
	}
	os.Unsetenv(envname.FuseRoot)
	os.Unsetenv(envname.FuseReadOnly)
	cwd, err := unix.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if err := privateNamespace(); err != nil {
		return err
	}
	// The directories to show as they are, opened before the view hides
	// them, in this namespace: a bind mount's source must be one of its
	// own mounts.
	shown, err := openAll(readOnly)
	defer closeAll(shown)
	if err != nil {
		return err
	}
	fd, err := mountView(root)
	if err != nil {
		return err
	}
	// The worker must not keep the fd: it could answer its own requests.
	defer unix.Close(fd)
	if err := handOver(fd); err != nil {
		return err
	}
	// Mounting on a path in the view looks it up through the view: only
	// now that the supervisor serves it.
	for i, dir := range readOnly {
		if err := bindReadOnly(shown[i], dir); err != nil {
			return err
		}
	}
	if err := unix.Chdir(cwd); err != nil {
		return fmt.Errorf("enter %s in the view: %w", cwd, err)
	}
	return nil
}

// privateNamespace gives the calling thread a mount namespace of its own.
func privateNamespace() error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare the mount namespace: %v: %w", err, ErrMountRefused)
	}
	// A slave of the namespace it came from: mounts made outside still
	// reach the worker, the view never leaves this namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("make / a slave mount: %v: %w", err, ErrMountRefused)
	}
	return nil
}

// mountView mounts a FUSE file system over root in the calling thread's
// mount namespace, and returns its /dev/fuse fd.
func mountView(root string) (int, error) {
	var st unix.Stat_t
	if err := unix.Stat(root, &st); err != nil {
		return -1, fmt.Errorf("workspace root %s: %w", root, err)
	}
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open /dev/fuse: %v: %w", err, ErrNoFuse)
	}
	if err := unix.Mount("leasegate", root, "fuse.leasegate", unix.MS_NOSUID|unix.MS_NODEV, mountData(fd, st.Mode)); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("mount the view over %s: %v: %w", root, err, ErrMountRefused)
	}
	return fd, nil
}

// mountData is the FUSE mount's option string. allow_other lets a worker
// process that changes its user use the view; default_permissions has the
// kernel check the files' modes, since the server acts as the sidecar's
// user.
func mountData(fd int, mode uint32) string {
	return strings.Join([]string{
		fmt.Sprintf("fd=%d", fd),
		fmt.Sprintf("rootmode=%o", mode&unix.S_IFMT),
		fmt.Sprintf("user_id=%d", os.Getuid()),
		fmt.Sprintf("group_id=%d", os.Getgid()),
		"allow_other", "default_permissions",
	}, ",")
}

// openAll opens each directory as an O_PATH fd.
func openAll(dirs []string) ([]int, error) {
	var fds []int
	for _, d := range dirs {
		fd, err := unix.Open(d, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fds, fmt.Errorf("open %s: %w", d, err)
		}
		fds = append(fds, fd)
	}
	return fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// bindReadOnly mounts the directory fd names over dir, read-only.
func bindReadOnly(fd int, dir string) error {
	src := "/proc/self/fd/" + strconv.Itoa(fd)
	if err := unix.Mount(src, dir, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("show %s beneath the view: %w", dir, err)
	}
	if err := unix.Mount("", dir, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("make %s read-only: %w", dir, err)
	}
	return nil
}
