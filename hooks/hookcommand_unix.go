//go:build !windows

package hooks

// hookCommand is the shell line that runs `exe hook AGENT` for agent a:
// every agent runs it with a POSIX-like shell here.
func hookCommand(a Agent, exe string) (string, error) {
	return shellQuote(exe) + " hook " + string(a), nil
}

// gatingCommand is the shell line of a hook that gates a call (the
// agent's failClosedOn event): the fail-closed line (failclosed.go).
func gatingCommand(a Agent, exe string) (string, error) {
	return failClosedLine(a, exe), nil
}

// commandWords splits a hook line as the POSIX shell running it would.
func commandWords(line string) []string { return shellWords(line) }

// failsOpen reports whether a gating hook line of leasegate's lets the
// agent's call through when leasegate cannot run or answer: any line but
// the fail-closed one, such as the bare `PATH hook AGENT` an older
// install wrote.
func failsOpen(line string) bool { return !isFailClosedLine(line) }

// openGatingNote is what install says where a gating hook fails open: no
// such hook is written here.
const openGatingNote = ""
