// Package liveness owns the answer to "is this lease owner still there?":
// alive, stopped, dead or unknown, always with the evidence that supports
// the verdict. It is the only package of leasegate that imports gopsutil,
// and it must not reclaim, release or store anything itself: the
// coordinator acts on its verdicts.
//
// The rules, applied by Evaluator.Evaluate in this order. Each line of
// evidence names its source: "pidfd:", "pid + start time:", or the
// heartbeat.
//
// An owner whose process the coordinator identified itself (Subject.Process:
// Identify from the connection's peer, held by Watch) is judged by that
// process: through its pidfd, exited gives Dead whatever the heartbeat
// says, state T gives Stopped, anything else Alive; without a pidfd (a
// kernel before 5.3, or past the Descriptors' share of the open-files
// limit, which the evidence names) by its pid and create time as below.
//
// An owner whose process cannot be seen (Subject.Unseen: outside this pid
// namespace) is judged by its heartbeat alone, as below.
//
// An owner on this host (Owner.Host equals Config.Host) with a PID above
// zero is judged by its process, looked up with gopsutil:
//   - no process with that pid: Dead ("pid 1234 not found ..."), but
//     Unknown while the owner's heartbeat is within the TTL: the owner
//     says it is there, and its pid may be one of another pid namespace;
//   - a process whose create time differs from Owner.StartTime by more
//     than StartSlack: Dead, because the pid now belongs to another process
//     (the owner exited and the kernel reused its pid); but Unknown if the
//     owner's heartbeat is within the TTL, since heartbeats come from the
//     owner and a stepped wall clock shifts the create times Linux reports;
//   - a zombie (state Z, exited but not reaped): Dead;
//   - stopped (state T or t): Stopped;
//   - anything else: Alive, with the process's start time as evidence.
//
// An owner that registered no StartTime is taken to be whatever process
// has its pid, and the evidence says that reuse was not checked.
//
// When that process is alive or stopped but the owner's heartbeat is
// non-zero and older than the TTL, the verdict stands and the evidence
// notes the stale heartbeat: a live process is never reclaimed. A lookup
// error other than "not found" (permissions, a malformed /proc) gives
// Unknown, never Dead on doubt.
//
// Any other owner (another host, an empty host, or PID 0) is judged by its
// heartbeat alone: no heartbeat at all gives Unknown (a check-out from the
// CLI never beats), an age of at most Config.TTL gives Alive, and an older
// one gives Dead with the age, the TTL and the last heartbeat time as
// evidence. An empty Owner.Host is not taken for this host, because reading
// another machine's pid here could call a live owner dead.
//
// The package also answers two questions for the sidecar: ProcessStart
// gives the create time an owner registers, and TreeStopped tells whether a
// worker's whole process tree is stopped (for stop-idle release).
package liveness
