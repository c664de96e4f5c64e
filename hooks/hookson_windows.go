package hooks

// hooksOnLine is "" on Windows: Gemini CLI runs its shell commands with
// PowerShell there, and leasegate gives them no line; the AfterTool hook
// reports a commit of another owner's file after it is made.
func hooksOnLine(string) string { return "" }

// hooksOnGit gives no command on Windows, as hooksOnLine.
func hooksOnGit(string, string) (string, bool) { return "", false }
