package fuse

import (
	"fmt"
	"os"
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
	os.Unsetenv(envname.FuseRoot)
	cwd, err := unix.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
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
	if err := unix.Chdir(cwd); err != nil {
		return fmt.Errorf("enter %s in the view: %w", cwd, err)
	}
	return nil
}

// mountView makes the calling thread's mount namespace private and mounts
// a FUSE file system over root in it, and returns its /dev/fuse fd.
func mountView(root string) (int, error) {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return -1, fmt.Errorf("unshare the mount namespace: %v: %w", err, ErrMountRefused)
	}
	// A slave of the namespace it came from: mounts made outside still
	// reach the worker, the view never leaves this namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return -1, fmt.Errorf("make / a slave mount: %v: %w", err, ErrMountRefused)
	}
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
