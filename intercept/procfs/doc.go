// Package procfs reads what the interception adapters need to know about a
// worker's processes and threads from Linux's /proc: a thread's process
// (Tgid), a process's parent and descendants, a thread's pending and
// blocked signals, its filesystem ids and umask (ReadStatus), and how many
// processes and threads a user runs (UserTasks).
//
// It reads only; it signals, traces and changes nothing, and knows nothing
// of leases or of any adapter.
package procfs
