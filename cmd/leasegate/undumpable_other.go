//go:build !linux

package main

// undumpable does nothing where PR_SET_DUMPABLE does not exist.
func undumpable() {}
