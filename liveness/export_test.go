package liveness

// SetLookup replaces how e finds a process, so tests can produce the lookup
// failures a root-run test cannot provoke for real (permissions, a
// malformed /proc).
func SetLookup(e *Evaluator, f func(pid int) (start int64, status string, err error)) {
	e.lookup = func(pid int) (procState, error) {
		start, status, err := f(pid)
		return procState{start: start, status: status}, err
	}
}
