// Package fuse gates the file mutations of a worker process tree with a
// FUSE loopback mounted over the workspace in the worker's own mount
// namespace (go-fuse v2): the strict gate of `leasegate run --gate fuse`.
//
// It owns four things: the helper's gate (Gate.Setup, run through
// intercept/spawn) that enters a private mount namespace, opens /dev/fuse
// and mounts it over the workspace root; the gated loopback Node, which
// turns each mutating request into an intercept.Mutation with absolute host
// paths, asks the Decider and only then does what was asked; the watch of
// the files beneath (inotify) that drops what the kernel keeps of a name
// as soon as it changes outside the view; and the Supervisor that serves
// the mount from the sidecar's own (original) mount namespace.
//
// Every mutation of the tree under the mount reaches the server whatever
// path the worker takes to it (io_uring included), and what is checked is
// what is done: the server makes the change itself, by the path it asked
// about. Reads are served and never asked about.
//
// It must not decide anything itself: no lease logic, no path policy and
// no HTTP. Limits the caller should know (also in DESIGN.md): mounting
// needs CAP_SYS_ADMIN (root); a worker that is root can unmount the view
// in its namespace and write the files beneath; writes through a hard link
// outside the workspace, or by a process outside the worker's namespace,
// are not seen.
package fuse
