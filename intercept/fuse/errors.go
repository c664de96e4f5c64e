package fuse

import "errors"

var (
	// ErrNoFuse means /dev/fuse cannot be opened: the kernel has no FUSE
	// or the device is not there (a container without it). Start returns
	// it before the worker runs.
	ErrNoFuse = errors.New("FUSE unavailable: /dev/fuse cannot be opened")

	// ErrMountRefused means the helper could not make its private mount
	// namespace or mount the view over the workspace: that takes
	// CAP_SYS_ADMIN (run as root). Start returns it before the worker
	// runs.
	ErrMountRefused = errors.New("FUSE mount refused (needs root: CAP_SYS_ADMIN for a private mount namespace and the mount)")

	// ErrUnsupported means this platform has no FUSE gate in this package.
	ErrUnsupported = errors.New("FUSE gate unsupported on this platform")

	// ErrInvalidConfig is returned (wrapped) by Config.Validate and Start.
	ErrInvalidConfig = errors.New("invalid FUSE gate config")
)
