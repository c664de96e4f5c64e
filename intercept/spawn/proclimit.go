package spawn

import "fmt"

// ProcLimitError is a worker that could not be started because its user
// runs as many processes and threads as the user's process limit
// (RLIMIT_NPROC, `ulimit -u`) allows, or so nearly that the start would
// not fit: the kernel refuses a fork with EAGAIN, and a Go helper that
// cannot make a thread aborts with a stack dump that names no limit.
type ProcLimitError struct {
	// Limit is RLIMIT_NPROC's soft value.
	Limit uint64
	// Tasks is how many processes and threads the user ran when it was
	// counted; -1 when /proc could not be read.
	Tasks int
	// Need is, for a start refused before anything was forked, how many
	// it would have added (StartTasks); 0 for a fork the kernel refused.
	Need int
	// Err is the refused fork's error; nil for a start refused before
	// anything was forked.
	Err error
}

func (e *ProcLimitError) Error() string {
	count := "its processes and threads"
	if e.Tasks >= 0 {
		count = fmt.Sprintf("its %d processes and threads", e.Tasks)
	}
	limit := fmt.Sprintf("this user's process limit is %d (`ulimit -u`, RLIMIT_NPROC)", e.Limit)
	raise := "raise it (`ulimit -u N` in the shell that runs leasegate, or the user's nproc in /etc/security/limits.conf) or end some of them"
	if e.Err == nil {
		return fmt.Sprintf("%s, and %s leave no room for the %d a worker under the gate starts with; nothing was started: %s", limit, count, e.Need, raise)
	}
	return fmt.Sprintf("%v: %s, reached by %s: %s", e.Err, limit, count, raise)
}

// Unwrap returns the refused fork's error.
func (e *ProcLimitError) Unwrap() error { return e.Err }

// StartTasks is how many processes and threads starting a worker under a
// gate adds to its caller's: the reaper's and the helper's Go runtime
// threads, the worker's first process and the sidecar's git (12 to 13
// measured for `leasegate run -- sh -c ...`, the reaper holding 8). A start
// with less room under the user's process limit is refused before
// anything is forked (CheckProcRoom), since a helper that cannot make a
// thread aborts with a stack dump; the few to spare cost only the refusal
// of a start that might just have fitted and then could not fork its
// worker's first child.
const StartTasks = 16

// RunTasks is how many threads the process that starts a worker (`leasegate
// run`) has once it starts the gate: 5 to 9 measured (with GOMAXPROCS 1 to
// 16), of which 3 to 6 already run when its main function starts. The
// check at its start (CheckRunRoom) keeps room for the rest as well as
// for StartTasks; one more than measured costs at most the refusal of a
// start that might just have fitted.
const RunTasks = 10
