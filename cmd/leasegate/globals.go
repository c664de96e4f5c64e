package main

import (
	"strings"
)

// globalFlags are the flags a user may give before the command
// (`leasegate --workspace X status`); each takes a value unless listed
// as boolean.
var globalFlags = map[string]bool{ // name -> takes a value
	"workspace": true,
	"log-level": true,
	"json":      false,
	"no-start":  false,
}

// splitGlobals separates the global flags given before the command from
// the command and its arguments. It returns the flags as given, the
// command name ("" if none) and the rest; a flag it does not know ends
// the scan and is returned as the command, to be refused there.
func splitGlobals(args []string) (globals []string, name string, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			if a == "--" {
				i++
			}
			if i < len(args) {
				return globals, args[i], args[i+1:]
			}
			return globals, "", nil
		}
		flagName, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takesValue, known := globalFlags[flagName]
		if !known {
			return globals, a, args[i+1:]
		}
		globals = append(globals, a)
		if takesValue && !hasValue && i+1 < len(args) {
			i++
			globals = append(globals, args[i])
		}
	}
	return globals, "", nil
}

// withGlobals puts global flags given before the command where the
// command's own flags go: right after the command name, or after its
// subcommand (`ledger check`), so that they come before any "--".
func withGlobals(c command, globals, rest []string) []string {
	if len(globals) == 0 {
		return rest
	}
	at := 0
	if c.subcommand && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		at = 1
	}
	out := make([]string, 0, len(globals)+len(rest))
	out = append(out, rest[:at]...)
	out = append(out, globals...)
	return append(out, rest[at:]...)
}

// wantsJSON reports whether the invocation asks for JSON output: --json
// among its flags (before any "--").
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "-json", "--json=true", "-json=true":
			return true
		}
	}
	return false
}
