package hooks

// hookCommand is the line that runs `exe hook AGENT` in the shell agent a
// runs its hooks with on Windows (cmd.exe or PowerShell).
func hookCommand(a Agent, exe string) (string, error) { return windowsHookCommand(a, exe) }

// gatingCommand is the line of a hook that gates a call. On Windows it is
// the same line as any other hook's: see windowsFailsOpen.
func gatingCommand(a Agent, exe string) (string, error) { return windowsHookCommand(a, exe) }

// commandWords splits a hook line as cmd.exe or PowerShell would.
func commandWords(line string) []string { return windowsCommandWords(line) }

// failsOpen reports whether a gating hook line of leasegate's is one an
// older install wrote, which lets the agent's call through when leasegate
// cannot run. On Windows install writes no other line than before.
func failsOpen(string) bool { return false }
