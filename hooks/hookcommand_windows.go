package hooks

// hookCommand is the line that runs `exe hook AGENT` in the shell agent a
// runs its hooks with on Windows (cmd.exe or PowerShell).
func hookCommand(a Agent, exe string) (string, error) { return windowsHookCommand(a, exe) }

// gatingCommand is the line of a hook that gates a call. On Windows it is
// the same line as any other hook's (see openGatingNote).
func gatingCommand(a Agent, exe string) (string, error) { return windowsHookCommand(a, exe) }

// commandWords splits a hook line as cmd.exe or PowerShell would.
func commandWords(line string) []string { return windowsCommandWords(line) }

// failsOpen reports whether a gating hook line of leasegate's is one an
// older install wrote, which lets the agent's call through when leasegate
// cannot run. On Windows install writes no other line than before.
func failsOpen(string) bool { return false }

// openGatingNote is what install says of Codex's and Gemini CLI's gating
// hooks here: their shells (cmd.exe, PowerShell) get no line that blocks
// the call when leasegate cannot run, since none has been run on Windows.
const openGatingNote = "note: on Windows this hook does not block a write when leasegate cannot run (a moved binary, a crash): " +
	"the agent then lets it through, as it does any failing hook; keep leasegate where install found it, and `leasegate doctor` checks that it answers"
