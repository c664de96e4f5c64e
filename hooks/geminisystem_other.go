//go:build !darwin && !windows

package hooks

// geminiSystemDir holds Gemini CLI's system-wide settings on Linux and
// the other Unix systems.
const geminiSystemDir = "/etc/gemini-cli"
