package hooks

// hookCommand is the line that runs `exe hook AGENT` in the shell agent a
// runs its hooks with on Windows (cmd.exe or PowerShell).
func hookCommand(a Agent, exe string) (string, error) { return windowsHookCommand(a, exe) }

// commandWords splits a hook line as cmd.exe or PowerShell would.
func commandWords(line string) []string { return windowsCommandWords(line) }
