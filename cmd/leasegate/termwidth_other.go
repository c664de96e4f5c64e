//go:build !linux

package main

import "os"

// terminalWidth is 0 (unknown) where `run`, the one command that draws on
// the terminal's width, cannot gate.
func terminalWidth(*os.File) int { return 0 }
