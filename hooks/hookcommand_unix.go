//go:build !windows

package hooks

// hookCommand is the shell line that runs `exe hook AGENT` for agent a:
// every agent runs it with a POSIX shell here.
func hookCommand(a Agent, exe string) (string, error) {
	return shellQuote(exe) + " hook " + string(a), nil
}

// commandWords splits a hook line as the POSIX shell running it would.
func commandWords(line string) []string { return shellWords(line) }
