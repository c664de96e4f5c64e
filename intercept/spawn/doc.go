// Package spawn starts a worker under an interception gate and follows it
// to its end; every adapter (intercept/seccomp, intercept/fuse) starts its
// workers through it.
//
// It owns the re-executed helper, the reaper between the supervisor and the
// worker, and the handshake between them: the supervisor re-executes its
// own binary (Command.Self) as the helper, the helper puts itself under the
// adapter's gate (Gate.Setup) on a locked OS thread and hands the gate's
// file descriptor to the supervisor over a socketpair (SCM_RIGHTS), waits
// for the go-ahead once the supervisor serves it, and execs the worker.
// With Command.Reap a reaper (a child subreaper with a parent-death
// signal) sits between them, so that the worker's whole tree ends with the
// supervisor. Process is the supervisor's view of the worker: its pid and
// process group, KillTree, Wait and Exited.
//
// It must not gate or decide anything: what the fd is and how it is served
// is the adapter's.
package spawn
