package sidecar

// foreground does nothing on Windows: its consoles have no process
// groups to hand the terminal to (and `run` is refused there).
func foreground(int) (func(), bool) { return func() {}, false }
