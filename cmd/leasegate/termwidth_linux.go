package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalWidth is the width in columns of the terminal f is, 0 when it
// is none or the kernel does not say.
func terminalWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
